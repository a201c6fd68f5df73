/**
 * The express app: `POST /graphql` (and Apollo's GET), `GET /health`, `GET /ready`, `GET /metrics`,
 * CORS, and the limits of ./limits.ts.
 *
 * `/health` answers 200 while the process runs, whatever the database does (a liveness probe must
 * not restart a healthy process during a database outage); `/ready` pings the database with a short
 * timeout and answers 503 while it cannot be reached or while the users' unique indexes are missing
 * (a database swapped for an empty one, a dropped collection) and being rebuilt. Outside production `GET /` leads to the
 * Apollo Sandbox landing page served at `/graphql`.
 */
import type { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import cors from 'cors';
import express, { type Express } from 'express';
import type { MongoClient } from 'mongodb';
import {
  authorize,
  createAuthenticator,
  ENDPOINT_ACCESS,
  openAccessWarning,
  UnauthenticatedError,
} from '../auth/index.js';
import type { Config } from '../config.js';
import { pingDatabase } from '../database/index.js';
import {
  createContextFactory,
  type GraphQLContext,
  type ServiceComponents,
} from '../graphql/context.js';
import { GRAPHQL_LIMITS, type PersistedQueries } from '../graphql/server.js';
import type { Logger } from '../logger.js';
import { corsOptions } from './cors.js';
import { batchLimit, jsonErrorHandler, requestBounds, requestTimeout } from './limits.js';
import './request-locals.js';

/** How long `/ready` waits for the database's answer to a ping. */
const READY_PING_TIMEOUT_MS = 2_000;

export type AppConfig = Pick<
  Config,
  | 'NODE_ENV'
  | 'CORS_ORIGINS'
  | 'ADMIN_TOKEN'
  | 'CLIENT_TOKENS'
  | 'BODY_LIMIT'
  | 'REQUEST_TIMEOUT_MS'
>;

export interface AppDeps {
  config: AppConfig;
  apollo: ApolloServer<GraphQLContext>;
  persistedQueries: PersistedQueries;
  client: MongoClient;
  components: ServiceComponents;
  logger: Logger;
}

export function createApp({
  config,
  apollo,
  persistedQueries,
  client,
  components,
  logger,
}: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('env', config.NODE_ENV);
  const openAccess = openAccessWarning(config);
  if (openAccess !== null) logger.warn(openAccess);

  // First, before anything that reads headers or bodies: a liveness probe costs nothing.
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/ready', async (_req, res) => {
    const reachable = await pingDatabase(client, READY_PING_TIMEOUT_MS);
    // Only ready once the unique indexes writes depend on exist (asking starts their rebuild).
    const indexed = reachable && (await components.users.indexesReady());
    const status = !reachable ? 'database unreachable' : indexed ? 'ready' : 'indexes rebuilding';
    res.status(indexed ? 200 : 503).json({ status });
  });

  const authenticate = createAuthenticator(config);
  app.use((req, res, next) => {
    res.locals.caller = authenticate(req.headers.authorization);
    next();
  });

  app.get('/metrics', async (_req, res) => {
    try {
      authorize(res.locals.caller, ENDPOINT_ACCESS['GET /metrics'], 'GET /metrics');
    } catch (err) {
      const unauthenticated = err instanceof UnauthenticatedError;
      if (unauthenticated) res.set('www-authenticate', 'Bearer');
      res.status(unauthenticated ? 401 : 403).json({ error: (err as Error).message });
      return;
    }
    res.type(components.stats.contentType).send(await components.stats.metrics());
  });

  if (config.NODE_ENV !== 'production') {
    app.get('/', (_req, res) => {
      res.redirect(302, '/graphql');
    });
  }

  const buildContext = createContextFactory(components);
  app.use(
    '/graphql',
    cors(corsOptions(config)),
    requestTimeout(config.REQUEST_TIMEOUT_MS),
    express.json({ limit: config.BODY_LIMIT }),
    // Apollo's middleware insists on a parsed body; GETs and non-JSON posts have none, and Apollo
    // itself then answers them (landing page, GET queries, CSRF refusal of simple requests).
    (req, _res, next) => {
      req.body ??= {};
      next();
    },
    batchLimit,
    requestBounds(GRAPHQL_LIMITS.maxTokens, persistedQueries),
    expressMiddleware(apollo, { context: ({ res }) => buildContext(res.locals) }),
  );

  app.use(jsonErrorHandler(logger));
  return app;
}
