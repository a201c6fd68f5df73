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
import { clientAddress } from '../auth/index';
import { PUSHED_OUT, type AdmissionTicket } from '../budgets/index';
import { subscribeSharing } from './subscription-execution';
import { refusal, type SubscriberConnection, type SubscriptionRules } from './subscription-rules';

export interface WebSocketTransportDeps {
  server: Server;
  /** The HTTP layer's check of an upgrade's `Origin` (CORS does not reach WebSockets). */
  acceptsOrigin: (req: IncomingMessage) => boolean;
  rules: SubscriptionRules;
  /** `TRUST_PROXY`: proxies in front of the service whose `X-Forwarded-For` is believed. */
  trustProxy: number;
}

export interface SubscriptionTransport {
  /**
   * Completes every subscription and closes every connection with 1012 (Service Restart): the
   * service is going away, not the client's subscription, and graphql-ws clients (like most
   * WebSocket clients) reconnect after it, through the load balancer to another instance.
   */
  close(): Promise<void>;
}

/** The close code of a connection the stopping service ends (RFC 6455 registry: Service Restart). */
export const SERVICE_RESTART = 1012;
/** The close code of a connection refused by a caller budget: HTTP's 429 in the private range. */
export const CLOSE_RATE_LIMITED = 4429;
/** The close code of a connection refused for want of room: WebSocket's "try again later". */
export const CLOSE_TRY_AGAIN_LATER = 1013;

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
  // Admission (src/budgets/admission.ts, shared with the SSE transport through the rules): an
  // opened socket awaits its connection_init in a place of its own, per process and per address,
  // then becomes one of its caller's connections.
  const { admission } = rules;
  const tickets = new WeakMap<WebSocket, AdmissionTicket>();

  // Registered before graphql-ws's own listener. A socket awaits its connection_init in a place of
  // admission's; it takes one of the connections (the holdings) only once it says who it is, so
  // sockets that never speak cannot fill them.
  wss.on('connection', (socket, req) => {
    const ticket = admission.open(clientAddress(req, deps.trustProxy), () =>
      socket.close(CLOSE_TRY_AGAIN_LATER, PUSHED_OUT),
    );
    tickets.set(socket, ticket);
    socket.once('close', () => {
      admission.release(ticket);
      const connection = connections.get(socket);
      if (connection !== undefined) rules.disconnect(connection);
    });
  });

  type Extra = { socket: WebSocket; request: IncomingMessage };
  const connectionOf = (extra: Extra) => connections.get(extra.socket);
  const disposable = useServer<Record<string, unknown> | undefined, Extra>(
    {
      schema: rules.schema,
      connectionInitWaitTimeout: rules.bounds.initWaitMs,
      subscribe: subscribeSharing,
      onConnect: async (ctx) => {
        const { socket, request } = ctx.extra;
        const ticket = tickets.get(socket);
        if (ticket === undefined || socket.readyState !== socket.OPEN) return false;
        const connection = rules.connect();
        if (connection === null) {
          socket.close(CLOSE_TRY_AGAIN_LATER, 'Too many subscription connections; try again later');
          return false;
        }
        connections.set(socket, connection);
        const who = rules.whoIs(
          ctx.connectionParams?.authorization,
          clientAddress(request, deps.trustProxy),
        );
        if (who === 'forbidden') return false;
        // Room first, then the budget: a socket refused for want of room costs its caller nothing.
        const admitted = rules.admit(ticket, who);
        if (admitted !== true) {
          if (socket.readyState === socket.OPEN) socket.close(CLOSE_TRY_AGAIN_LATER, admitted);
          return false;
        }
        const refused = await rules.chargeConnection(connection, who);
        if (refused !== null) {
          // Its admitted place is given back when the socket closes.
          socket.close(CLOSE_RATE_LIMITED, `Rate limited; retry after ${refused.retryAfter} s`);
          return false;
        }
        return true;
      },
      onSubscribe: async (ctx, id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
        const connection = connectionOf(ctx.extra);
        if (connection === undefined) return refusal('The connection is closed');
        return rules.start(connection, id, payload, 'WebSocket');
      },
      onError: (ctx, id, _payload, errors) => {
        const connection = connectionOf(ctx.extra);
        const formatted = rules.formatErrors(errors, connection, id);
        connection?.operations.delete(id);
        return formatted;
      },
      onNext: (ctx, id, _payload, _args, result) =>
        rules.formatResult(result, connectionOf(ctx.extra), id),
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
      for (const socket of wss.clients) {
        socket.close(SERVICE_RESTART, 'The service is restarting; reconnect');
      }
      await disposable.dispose();
    },
  };
}
