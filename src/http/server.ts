/**
 * Starting and stopping the service's HTTP server.
 *
 * Subscriptions share the port: graphql-ws on `/graphql` (src/graphql/subscriptions.ts), Server-Sent
 * Events on `/graphql/stream` (src/graphql/subscriptions-sse.ts), under one set of rules.
 * Stopping takes two steps, in the order Kubernetes documents: `failReadiness()` makes `/ready`
 * answer 503 while everything else keeps serving (the caller waits out its grace, so the load
 * balancer notices); `close()` then closes subscription connections (WebSocket: 1012 Service
 * Restart, which clients retry, elsewhere; SSE streams ended; their change streams with them),
 * stops accepting connections, lets in-flight requests finish (Apollo's drain plugin), then
 * resolves; it does not close the MongoClient, which belongs to the caller, as do the components
 * (the caller ensures indexes before starting, so the first request has the unique indexes it needs).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MongoClient } from 'mongodb';
import type { Config } from '../config';
import type { ServiceComponents } from '../components';
import { createAuthenticator } from '../auth/index';
import {
  createApolloServer,
  createSchema,
  documentProtection,
  startSubscriptionServer,
  createSseTransport,
  SubscriptionRules,
  type SubscriptionBounds,
} from '../graphql/index';
import { LISTEN_BACKLOG, SUBSCRIPTIONS } from '../limits';
import type { Logger } from '../logger';
import { createApp } from './app';
import { upgradeOriginCheck } from './cors';

export interface HttpServerDeps {
  client: MongoClient;
  /** Built by `createComponents` over a database of `client`; indexes ensured by the caller. */
  components: ServiceComponents;
  logger: Logger;
  /** Interface to listen on; all interfaces when omitted. */
  host?: string;
  /** Narrower subscription bounds for a test; `SUBSCRIPTIONS` (src/limits.ts) otherwise. */
  subscriptionBounds?: SubscriptionBounds;
}

export interface RunningHttpServer {
  url: string;
  server: Server;
  /** From now on `/ready` answers 503; requests are still served. */
  failReadiness(): void;
  close(): Promise<void>;
}

export async function startHttpServer(
  config: Config,
  deps: HttpServerDeps,
): Promise<RunningHttpServer> {
  const server = createServer();
  server.requestTimeout = config.REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(config.REQUEST_TIMEOUT_MS, 60_000);
  const schema = createSchema();
  const armor = documentProtection(config);
  const apollo = createApolloServer(config, server, deps.logger, schema, armor);
  const lifecycle = { stopping: false };
  await apollo.start();
  const subscriptionRules = new SubscriptionRules({
    schema,
    authenticate: createAuthenticator(config),
    components: deps.components,
    validationRules: armor.validationRules,
    logger: deps.logger,
    bounds: deps.subscriptionBounds ?? SUBSCRIPTIONS,
  });
  const subscriptions = startSubscriptionServer({
    server,
    acceptsOrigin: upgradeOriginCheck(config),
    rules: subscriptionRules,
    trustProxy: config.TRUST_PROXY,
  });
  const streams = createSseTransport(subscriptionRules);
  server.on(
    'request',
    createApp({
      config,
      lifecycle,
      apollo,
      client: deps.client,
      components: deps.components,
      logger: deps.logger,
      streams,
    }),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: config.PORT, host: deps.host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host =
    deps.host === undefined || deps.host === '0.0.0.0' || deps.host === '::'
      ? 'localhost'
      : deps.host;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    server,
    failReadiness: () => {
      lifecycle.stopping = true;
    },
    close: async () => {
      lifecycle.stopping = true;
      await Promise.all([subscriptions.close(), streams.close()]);
      await apollo.stop();
    },
  };
}
