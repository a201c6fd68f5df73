/**
 * The HTTP face of the service, on Node's own `http` module: `POST /graphql` (and Apollo's GET),
 * subscriptions as Server-Sent Events at `/graphql/stream`, `GET /health`, `GET /ready`, `GET /metrics`, CORS, and the limits of ./limits.ts.
 *
 * Why no framework: five routes and one middleware chain do not need a router, and express's
 * per-request work (prototype swaps, layered routing, an ETag hash of every response) was measured
 * (`npm run bench:compare`): leaving it cut the service's CPU per COUNTER `createUser` at
 * concurrency 64 by about a fifth. The well-kept pieces stay: `cors` and
 * body-parser's `json` (the BODY_LIMIT, charsets, compressed bodies and their errors; a plain JSON
 * body takes raw-body's shortcut of ./json-body.ts), connect-style middlewares that work on Node's
 * request and response as they are; Apollo's own
 * `executeHTTPGraphQLRequest` answers GraphQL (CSRF prevention, GET, batching, the landing page).
 *
 * `/health` answers 200 while the process runs, whatever the database does (a liveness probe must
 * not restart a healthy process during a database outage), before authentication; `/ready` pings
 * the database with a short timeout and answers 503 while it cannot be reached or while the users'
 * unique indexes are missing (a database swapped for an empty one, a dropped collection) and being
 * rebuilt. From the moment the service is told to stop (`ServiceLifecycle.stopping`, set on
 * SIGTERM) `/ready` answers 503 at once, without asking the database, while every other route
 * keeps serving; those answers close their connection, so a client's next request opens a new one,
 * which the load balancer sends to another instance. Outside production `GET /` opens Apollo Sandbox (served at `/graphql`) or, when Apollo's
 * CDN cannot be reached, the local explorer at `/explorer`, and `GET /schema.graphql` answers the
 * SDL (./explorer.ts). Anything else is 404.
 *
 * While tracing is on, each request to the GraphQL routes is served in its server span
 * (src/telemetry `inServerSpan`), the parent of its operation's and its database commands' spans;
 * probes, scrapes and the explorer are not traced.
 */
import { HeaderMap, type ApolloServer, type HTTPGraphQLResponse } from '@apollo/server';
import { Semaphore } from 'async-mutex';
import cors from 'cors';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { MongoClient } from 'mongodb';
import {
  authorize,
  clientAddress,
  createAuthenticator,
  ENDPOINT_ACCESS,
  openAccessWarning,
  UnauthenticatedError,
} from '../auth/index';
import type { Config } from '../config';
import { pingDatabase } from '../database/index';
import type { ServiceComponents } from '../components';
import {
  createContextFactory,
  SSE_PATH,
  type GraphQLContext,
  type SseTransport,
} from '../graphql/index';
import { REQUESTS_IN_EXECUTION, SUBSCRIPTIONS } from '../limits';
import type { Logger } from '../logger';
import { inServerSpan, REQUEST_ID_HEADER, requestIdsOf } from '../telemetry/index';
import { corsOptions } from './cors';
import { servedExplorer } from './explorer';
import { jsonBodyReader, type Middleware } from './json-body';
import { graphqlStatus } from './status';
import { loadTrustedDocuments, refusedDocument, type TrustedDocuments } from './trusted-documents';
import {
  bodyErrorAnswer,
  refusedBatch,
  refusedInput,
  sendError,
  sendJson,
  sentRefusal,
  startDeadline,
  verifyInputBounds,
  type ServiceRequest,
} from './admission';

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
  | 'TRUSTED_DOCUMENTS'
  | 'TRUSTED_DOCUMENTS_FOR'
  | 'TRUST_PROXY'
>;

/** What the process tells the HTTP layer of its own life. */
export interface ServiceLifecycle {
  /** True once the service was told to stop (src/main.ts, on SIGTERM): no longer ready. */
  readonly stopping: boolean;
}

export interface AppDeps {
  config: AppConfig;
  lifecycle: ServiceLifecycle;
  apollo: ApolloServer<GraphQLContext>;
  client: MongoClient;
  components: ServiceComponents;
  logger: Logger;
  /** Subscriptions over Server-Sent Events, at SSE_PATH. */
  streams: SseTransport;
}

/** Runs a connect-style middleware: true when it passed the request on, false when it answered. */
function passes(middleware: Middleware, req: IncomingMessage, res: ServerResponse) {
  return new Promise<boolean>((resolve, reject) => {
    const answered = () => resolve(false);
    res.once('finish', answered);
    middleware(req, res, (err) => {
      res.off('finish', answered);
      if (err === undefined) resolve(true);
      else reject(err);
    });
  });
}

/**
 * Runs a connect-style middleware that always passes the request on, with or without an error
 * (body-parser's readers): no watch for an answer of its own, which `passes` pays for.
 */
function through(middleware: Middleware, req: IncomingMessage, res: ServerResponse) {
  return new Promise<void>((resolve, reject) => {
    middleware(req, res, (err) => (err === undefined ? resolve() : reject(err)));
  });
}

/**
 * CORS for a request that is not a preflight. One without `Origin` (not a browser's cross-origin
 * request) gets from cors, whatever CORS_ORIGINS says, no grant and only `Vary: Origin` (the answer
 * depends on the origin); that header is set here without running cors, whose copy of its options
 * and chain of callbacks per request was a measured cost. With `Origin`, cors decides.
 */
function crossOrigin(
  allowCors: Middleware,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> | undefined {
  if (req.headers.origin !== undefined) return through(allowCors, req, res);
  res.setHeader('vary', 'Origin');
  return undefined;
}

/** The path and the query string (`?` included, or empty) of a request's URL. */
function splitUrl(url = '/'): { path: string; search: string } {
  const mark = url.indexOf('?');
  return mark < 0
    ? { path: url, search: '' }
    : { path: url.slice(0, mark), search: url.slice(mark) };
}

/** The GraphQL routes: `/graphql` (Apollo answers below it too) and SSE_PATH. */
function isGraphQLPath(path: string): boolean {
  return path === '/graphql' || path.startsWith('/graphql/');
}

/** `GET /metrics`: the Prometheus text, for a client or admin token. */
function metricsHandler(components: ServiceComponents) {
  return async (req: ServiceRequest, res: ServerResponse) => {
    try {
      authorize(req.caller, ENDPOINT_ACCESS['GET /metrics'], 'GET /metrics');
    } catch (err) {
      const unauthenticated = err instanceof UnauthenticatedError;
      if (unauthenticated) res.setHeader('www-authenticate', 'Bearer');
      sendJson(res, unauthenticated ? 401 : 403, { error: (err as Error).message });
      return;
    }
    const [strategies, budgets] = await Promise.all([
      components.stats.metrics(),
      components.budgets.metrics(),
    ]);
    res.setHeader('content-type', components.stats.contentType);
    res.end(strategies + budgets);
  };
}

/**
 * `GET /ready`: 200 once the database answers a ping and the users' unique indexes exist, until
 * the service is told to stop.
 */
function readinessHandler(
  client: MongoClient,
  components: ServiceComponents,
  lifecycle: ServiceLifecycle,
) {
  return async (res: ServerResponse) => {
    if (lifecycle.stopping) return sendJson(res, 503, { status: 'shutting down' });
    const reachable = await pingDatabase(client, READY_PING_TIMEOUT_MS);
    // Only ready once the unique indexes writes depend on exist (asking starts their rebuild).
    const indexed = reachable && (await components.users.indexesReady());
    const status = !reachable ? 'database unreachable' : indexed ? 'ready' : 'indexes rebuilding';
    sendJson(res, indexed ? 200 : 503, { status });
  };
}

/**
 * Writes Apollo's answer, unless the deadline answered 503 meanwhile. A complete answer (nearly
 * every one) is written at once; only a streamed one (incremental delivery) returns a promise, so
 * the common answer costs no async function and no promise of its own.
 */
function sendAnswer(
  res: ServerResponse,
  answer: HTTPGraphQLResponse,
  accept: string | undefined,
): Promise<void> | undefined {
  // The deadline answered 503 meanwhile: the late answer has no one to go to.
  if (res.headersSent) return undefined;
  // No answer of this API may be stored by a browser or a proxy (ids, users, counters change).
  res.setHeader('cache-control', 'no-store');
  for (const [key, value] of answer.headers) res.setHeader(key, value);
  res.statusCode = answer.status ?? 200;
  if (answer.body.kind === 'complete') {
    res.statusCode = graphqlStatus(res.statusCode, answer.body.string, accept);
    res.end(answer.body.string);
    return undefined;
  }
  return sendChunks(res, answer.body.asyncIterator);
}

/** Writes a streamed answer's chunks as they come, then ends it. */
async function sendChunks(res: ServerResponse, chunks: AsyncIterableIterator<string>) {
  for await (const chunk of chunks) res.write(chunk);
  res.end();
}

/**
 * A token that is presented but proves no one: 401 in GraphQL's error shape (which of the possible
 * reasons is not told), readable by a browser (CORS headers first).
 */
function tokenRefusal(allowCors: Middleware) {
  return async (req: ServiceRequest, res: ServerResponse) => {
    await through(allowCors, req, res);
    res.setHeader('www-authenticate', 'Bearer error="invalid_token"');
    sendError(
      req,
      res,
      401,
      'UNAUTHENTICATED',
      'The Authorization header holds no valid token (expected "Bearer <token>" with a configured token); send none to act as anonymous.',
    );
  };
}

/** `/graphql`: CORS, the deadline, the body, a turn among the requests in execution, the limits, then Apollo. */
function graphqlHandler(
  { config, apollo, components, logger }: AppDeps,
  allowCors: Middleware,
  trusted: TrustedDocuments | null,
) {
  const buildContext = createContextFactory(components, logger);
  const readJson = jsonBodyReader({ limit: config.BODY_LIMIT, verify: verifyInputBounds });
  // REQUESTS_IN_EXECUTION says why; async-mutex grants waiting requests in arrival order.
  const executing = new Semaphore(REQUESTS_IN_EXECUTION);
  return async (req: ServiceRequest, res: ServerResponse, search: string) => {
    // cors answers a preflight itself, without passing it on; any other request it passes on.
    if (req.method === 'OPTIONS') {
      if (!(await passes(allowCors, req, res))) return;
    } else await crossOrigin(allowCors, req, res);
    const deadline = startDeadline(req, res, config.REQUEST_TIMEOUT_MS);
    let leave: (() => void) | undefined;
    try {
      await through(readJson, req, res);
      if (res.headersSent) return; // the deadline answered 503 while the body was arriving
      // A turn once the body is in: a body still arriving holds no turn, so slow senders cannot
      // take every turn and shut the other callers out.
      [, leave] = await executing.acquire();
      if (res.headersSent) return; // the deadline answered 503 while the request waited its turn
      // GETs and non-JSON posts have no body; Apollo answers them (landing page, GET queries, the
      // CSRF refusal of simple requests).
      req.body ??= {};
      if (refusedBatch(req, res)) return;
      const document = refusedDocument(trusted, req, res, search);
      if (document.refused) return;
      search = document.search;
      if (refusedInput(req, res, search, components.budgets)) return;
      const headers = new HeaderMap();
      for (const [key, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      }
      let answer: HTTPGraphQLResponse;
      try {
        answer = await apollo.executeHTTPGraphQLRequest({
          httpGraphQLRequest: { method: req.method ?? 'GET', headers, search, body: req.body },
          context: () => buildContext(req),
        });
      } finally {
        req.bounds.close();
      }
      if (res.headersSent || sentRefusal(req, res)) return;
      const streaming = sendAnswer(res, answer, req.headers.accept);
      if (streaming !== undefined) await streaming;
    } finally {
      // Done, answered or failed (a failure is answered by the caller): no deadline is left to keep.
      // Work a client walked away from stays bounded by it until here.
      deadline.end();
      leave?.();
    }
  };
}

/**
 * `/graphql/stream`: CORS, then a subscription's body (at most a graphql-ws message's size, the
 * same input bounds as over HTTP), then the SSE transport. No request deadline: a stream lasts.
 */
function streamHandler({ streams, components }: AppDeps, allowCors: Middleware) {
  const readJson = jsonBodyReader({
    limit: String(SUBSCRIPTIONS.messageBytes),
    verify: verifyInputBounds,
  });
  return async (req: ServiceRequest, res: ServerResponse, search: string) => {
    if (req.method === 'OPTIONS') {
      if (!(await passes(allowCors, req, res))) return;
    } else await crossOrigin(allowCors, req, res);
    await through(readJson, req, res);
    if (refusedInput(req, res, search, components.budgets)) return;
    await streams.handle(req, res, req.body, {
      address: req.address,
      requestId: req.ids.requestId,
    });
  };
}

/** The answer to an error no handler answered: a body-parser refusal, else a 500 (logged). */
function answerFailure(logger: Logger, req: ServiceRequest, res: ServerResponse, err: unknown) {
  const answer = bodyErrorAnswer(err);
  if (answer === null) logger.child(req.ids).error({ err }, 'unexpected error in the HTTP layer');
  if (res.headersSent) {
    // Already answered (the deadline fired first): the late failure has no one to tell.
    if (!res.writableEnded) res.end();
    return;
  }
  const { status, code, message, field } = answer ?? {
    status: 500,
    code: 'INTERNAL_SERVER_ERROR',
    message: 'Internal server error',
  };
  sendError(req, res, status, code, message, field === undefined ? {} : { field });
}

/**
 * The manifest of TRUSTED_DOCUMENTS, read and checked in every mode (a bad one stops the start),
 * enforced in production only: the Sandbox and the local explorer send documents of their own.
 */
function trustedDocuments(config: AppConfig, logger: Logger): TrustedDocuments | null {
  if (config.TRUSTED_DOCUMENTS === undefined) return null;
  const trusted = loadTrustedDocuments(config.TRUSTED_DOCUMENTS, config.TRUSTED_DOCUMENTS_FOR);
  if (config.NODE_ENV === 'production') return trusted;
  logger.warn(
    `TRUSTED_DOCUMENTS: ${trusted.byHash.size} documents read; outside production every caller may still send any document`,
  );
  return null;
}

export function createApp(deps: AppDeps): RequestListener {
  const { config, client, components, logger, lifecycle } = deps;
  const openAccess = openAccessWarning(config);
  if (openAccess !== null) logger.warn(openAccess);
  const authenticate = createAuthenticator(config);
  const allowCors = cors(corsOptions(config)) as Middleware;
  const graphql = graphqlHandler(deps, allowCors, trustedDocuments(config, logger));
  const stream = streamHandler(deps, allowCors);
  const refuseToken = tokenRefusal(allowCors);
  const metrics = metricsHandler(components);
  const ready = readinessHandler(client, components, lifecycle);

  const route = async (req: ServiceRequest, res: ServerResponse, path: string, search: string) => {
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (lifecycle.stopping) res.setHeader('connection', 'close');
    // First, before anything that reads headers or bodies: a liveness probe costs nothing.
    if (read && path === '/health') return sendJson(res, 200, { status: 'ok' });
    if (read && path === '/ready') return ready(res);
    const caller = authenticate(req.headers.authorization);
    if (isGraphQLPath(path)) {
      // Timed from here, a token refusal and a failure included (the request histogram).
      const observed = (req.observed = components.requests.start());
      try {
        if (caller === null) return await refuseToken(req, res);
        req.caller = caller;
        req.address = clientAddress(req, config.TRUST_PROXY);
        if (path === SSE_PATH) return await stream(req, res, search);
        return await graphql(req, res, search);
      } catch (err) {
        return answerFailure(logger, req, res, err);
      } finally {
        components.requests.finish(observed, res.statusCode);
      }
    }
    if (caller === null) return refuseToken(req, res);
    req.caller = caller;
    if (read && path === '/metrics') return metrics(req, res);
    if (read && config.NODE_ENV !== 'production' && (await servedExplorer(path, res))) return;
    sendJson(res, 404, { error: `No ${req.method ?? ''} ${path} here` });
  };

  return (incoming, res) => {
    const req = incoming as ServiceRequest;
    const { path, search } = splitUrl(req.url);
    const serve = () => {
      // First of all: every answer, a probe's too, names the request it answers (in its span, so
      // a traced request is named by its trace id).
      req.ids = requestIdsOf(req.headers);
      res.setHeader(REQUEST_ID_HEADER, req.ids.requestId);
      return route(req, res, path, search).catch((err: unknown) =>
        answerFailure(logger, req, res, err),
      );
    };
    // Only the API is traced: probes, scrapes and the explorer would drown the traces of requests.
    if (!isGraphQLPath(path)) void serve();
    else
      void inServerSpan(
        req,
        res,
        { path, route: path === SSE_PATH ? SSE_PATH : '/graphql' },
        serve,
      );
  };
}
