/**
 * GraphQL subscriptions over `graphql-ws` (the protocol Apollo Sandbox, Apollo Client's
 * `GraphQLWsLink` and urql's `subscriptionExchange` speak), on the HTTP server's own port and path,
 * `/graphql`: an upgrade request there is a subscription connection, anything else stays HTTP.
 * The rules (who, what, how many) are ./subscription-rules.ts's, shared with the SSE transport;
 * this module only maps the protocol onto them.
 *
 * Contract:
 * - Whence: an upgrade whose `Origin` the HTTP layer does not accept (CORS_ORIGINS, the service's own
 *   origin; browsers apply no CORS to WebSockets) is refused with 403 before any message.
 * - Who: the token travels in `connection_init`'s payload (`{ authorization: "Bearer <token>" }`,
 *   as browsers cannot set headers on a WebSocket); a caller the rules refuse is closed with 4403
 *   Forbidden.
 * - How many: past the connections bound the new socket is closed with 1013 (try again later); a
 *   subscription past a subscription bound is answered TOO_MANY_SUBSCRIPTIONS. Heartbeats: the
 *   server pings every `keepAliveMs` and terminates a connection that did not answer within
 *   `keepAliveMs` (graphql-ws's keep-alive over ws ping/pong), so a dead peer's subscriptions and
 *   change streams end. A client message is at most `messageBytes`.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { ExecutionArgs, GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { subscribeSharing } from './subscription-execution';
import { refusal, type SubscriberConnection, type SubscriptionRules } from './subscription-rules';

export interface WebSocketTransportDeps {
  server: Server;
  /** The HTTP layer's check of an upgrade's `Origin` (CORS does not reach WebSockets). */
  acceptsOrigin: (req: IncomingMessage) => boolean;
  rules: SubscriptionRules;
}

export interface SubscriptionTransport {
  /** Completes every subscription and closes every connection. */
  close(): Promise<void>;
}

export function startSubscriptionServer(deps: WebSocketTransportDeps): SubscriptionTransport {
  const { rules } = deps;
  const wss = new WebSocketServer({
    server: deps.server,
    path: '/graphql',
    maxPayload: rules.bounds.messageBytes,
    verifyClient: ({ req }, answer) =>
      deps.acceptsOrigin(req) ? answer(true) : answer(false, 403, 'Origin not allowed'),
  });
  const connections = new WeakMap<WebSocket, SubscriberConnection>();

  // Registered before graphql-ws's own listener, so a socket past the bound never reaches it.
  wss.on('connection', (socket) => {
    const connection = rules.connect();
    if (connection === null) {
      socket.close(1013, 'Too many subscription connections; try again later');
      return;
    }
    connections.set(socket, connection);
    socket.once('close', () => rules.disconnect(connection));
  });

  type Extra = { socket: WebSocket };
  const connectionOf = (extra: Extra) => connections.get(extra.socket);
  const disposable = useServer<Record<string, unknown> | undefined, Extra>(
    {
      schema: rules.schema,
      subscribe: subscribeSharing,
      onConnect: (ctx) => {
        const connection = connectionOf(ctx.extra);
        return (
          connection !== undefined &&
          rules.identify(connection, ctx.connectionParams?.authorization)
        );
      },
      onSubscribe: async (ctx, id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
        const connection = connectionOf(ctx.extra);
        if (connection === undefined) return refusal('The connection is closed');
        return rules.start(connection, id, payload, 'WebSocket');
      },
      onError: (_ctx, _id, _payload, errors) => rules.formatErrors(errors),
      onNext: (_ctx, _id, _payload, _args, result) => rules.formatResult(result),
      onComplete: (ctx, id) => {
        const connection = connectionOf(ctx.extra);
        if (connection !== undefined) rules.end(connection, id);
      },
    },
    wss,
    rules.bounds.keepAliveMs,
  );

  return {
    close: async () => {
      for (const socket of wss.clients) socket.close(1001, 'The service is stopping');
      await disposable.dispose();
    },
  };
}
