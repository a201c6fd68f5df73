/**
 * GraphQL subscriptions over `graphql-ws` (the protocol Apollo Sandbox, Apollo Client's
 * `GraphQLWsLink` and urql's `subscriptionExchange` speak), on the HTTP server's own port and path,
 * `/graphql`: an upgrade request there is a subscription connection, anything else stays HTTP.
 *
 * Contract:
 * - Whence: an upgrade whose `Origin` the HTTP layer does not accept (CORS_ORIGINS, the service's own
 *   origin; browsers apply no CORS to WebSockets) is refused with 403 before any message.
 * - Who: the token travels in `connection_init`'s payload (`{ authorization: "Bearer <token>" }`,
 *   as browsers cannot set headers on a WebSocket) and is checked once, by src/auth, as a request's
 *   header is: a token that proves no one, or a caller that may call no subscription field (the
 *   role table), is closed with 4403 Forbidden. Each subscription is then authorized by the role
 *   table again (its resolver), as a root field over HTTP is.
 * - What: only subscriptions; queries and mutations go over HTTP, where the per-request bounds and
 *   the deadline hold. A document is parsed with the HTTP layer's token limit and validated with
 *   graphql-armor's depth, cost, alias and directive rules, as over HTTP.
 * - How many (src/limits.ts `SUBSCRIPTIONS`): which connections are admitted is
 *   src/budgets/admission.ts (`ConnectionAdmission`, hooked in here at the socket's open and at its
 *   `connection_init`): sockets awaiting `connection_init` have their own places per process and
 *   per address (the one that waited longest is closed, 1013, to make room for a new one) and
 *   `initWaitMs` to send it (then graphql-ws closes them, 4408), so they never take the room of
 *   callers that say who they are; connections per process and per caller. The
 *   caller's budgets (src/budgets) are charged a connection at its `connection_init` and a
 *   subscription at its `subscribe`. Subscriptions are bounded per connection and per client (over
 *   all its connections in this process). Beyond a bound the new connection is closed (1013, try
 *   again later), beyond a budget closed 4429 with the seconds to wait in its reason, or the
 *   subscription answered an error with code TOO_MANY_SUBSCRIPTIONS (retryable: once another ends)
 *   or RATE_LIMITED (with `retryAfter`), and nothing else changes. A
 *   subscription counts from its `subscribe` message until it completes, fails or its connection
 *   closes. Heartbeats: the server pings every `keepAliveMs` and terminates a connection that did
 *   not answer within `keepAliveMs` (graphql-ws's keep-alive over ws ping/pong), so a dead peer's
 *   subscriptions and change streams end. `bounds` replaces them for a test only (to show each
 *   bite without a thousand connections); the service runs with `SUBSCRIPTIONS`.
 * - Each connection has one context (src/graphql/context.ts) whose signal aborts when it closes;
 *   a subscription's change stream closes when it completes or its connection closes.
 * - Each operation (`subscribe` message) has a request id of its own (src/telemetry): its errors
 *   carry it in `extensions.requestId`, and what is logged about them carries it.
 * - Executed once per event and kind of subscriber: subscribers of one shared change stream
 *   (src/database/change-feed.ts) receive the same event object; its result for one document,
 *   operation name, variables and caller (role and client: all a resolver may depend on) is
 *   computed once and handed to each of them, instead of graphql-js executing the selection set
 *   once per subscriber (15% of the service's busy time at 100 subscribers, docs/benchmark.md). A
 *   result with errors is not shared (it may be one connection's abort): each executes its own.
 */
import type { IncomingMessage, Server } from 'node:http';
import {
  createSourceEventStream,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  type GraphQLSchema,
  GraphQLError,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
  type ValidationRule,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { type Caller, clientAddress, requiredRole, FIELD_ACCESS } from '../auth/index';
import {
  budgetHolder,
  ConnectionAdmission,
  PUSHED_OUT,
  RateLimitedError,
  type AdmissionTicket,
  type BudgetHolder,
} from '../budgets/index';
import { DOCUMENT, SUBSCRIPTIONS } from '../limits';
import type { Logger } from '../logger';
import type { ServiceComponents } from '../components';
import { createContextFactory } from './context';
import { requestIdsOf, type RequestIds } from '../telemetry/index';
import { createErrorFormatter, logErrorsWith, withRequestId } from './errors';
import { RequestBounds } from './request-bounds';

export interface SubscriptionServerDeps {
  server: Server;
  schema: GraphQLSchema;
  /** The HTTP layer's check of an upgrade's `Origin` (CORS does not reach WebSockets). */
  acceptsOrigin: (req: IncomingMessage) => boolean;
  /** The HTTP layer's authenticator: a header value to the caller it proves, or null. */
  authenticate: (authorization?: string) => Caller | null;
  components: ServiceComponents;
  /** The GraphQL-level rules over HTTP besides graphql-js's own (graphql-armor's). */
  validationRules: readonly ValidationRule[];
  logger: Logger;
  /** `SUBSCRIPTIONS` (src/limits.ts) unless a test narrows them. */
  bounds?: SubscriptionBounds;
  /** `TRUST_PROXY`: proxies in front of the service whose `X-Forwarded-For` is believed. */
  trustProxy: number;
}

export type SubscriptionBounds = { readonly [bound in keyof typeof SUBSCRIPTIONS]: number };

export interface SubscriptionServer {
  /**
   * Completes every subscription and closes every connection with 1012 (Service Restart): the
   * service is going away, not the client's subscription, and graphql-ws clients (like most
   * WebSocket clients) reconnect after it, through the load balancer to another instance.
   */
  close(): Promise<void>;
}

/** The close code of a connection the stopping service ends (RFC 6455 registry: Service Restart). */
export const SERVICE_RESTART = 1012;

/** What one connection carries: its caller, its live subscriptions, its operations' ids, its end. */
interface Connection {
  caller?: Caller;
  holder?: BudgetHolder;
  subscriptions: Set<string>;
  /** By operation id, from its `subscribe` message until it ends. */
  operations: Map<string, RequestIds>;
  ended: AbortController;
}

const RANK = { anonymous: 0, client: 1, admin: 2 } as const;

/** The least role any subscription field needs: a caller below it may not even connect. */
function leastSubscriptionRole(): keyof typeof RANK {
  const roles = Object.keys(FIELD_ACCESS.Subscription ?? {}).map((field) =>
    requiredRole('Subscription', field),
  );
  return roles.reduce((least, role) => (RANK[role] < RANK[least] ? role : least), 'admin');
}

/** Who counts as one client for the per-client bound. */
function clientKey(caller: Caller): string {
  return caller.role === 'client' ? `client:${caller.client}` : caller.role;
}

/** What makes two subscriptions' results for one event the same, per subscription's arguments. */
const signatures = new WeakMap<ExecutionArgs, string>();
/** Each event's results, by signature (an event lives as long as a feed still holds it). */
const executed = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

/** The result of `args` for `event`, executed once for every subscription of one signature. */
function executeOnce(
  args: ExecutionArgs,
  signature: string,
  event: unknown,
): Promise<ExecutionResult> {
  const run = async () => execute({ ...args, rootValue: event });
  if (event === null || typeof event !== 'object') return run();
  let results = executed.get(event);
  if (results === undefined) {
    results = new Map();
    executed.set(event, results);
  }
  const shared = results.get(signature);
  if (shared !== undefined) {
    return shared.then((result) => (result.errors === undefined ? result : run()));
  }
  const result = run();
  results.set(signature, result);
  return result;
}

/**
 * graphql-js's `subscribe` (the source stream of the subscription field's resolver, each event
 * executed with the selection set), executing each event once per signature (the header).
 */
async function subscribeSharing(
  args: ExecutionArgs,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  const signature = signatures.get(args);
  return mapEvents(source, (event) =>
    signature === undefined
      ? execute({ ...args, rootValue: event })
      : executeOnce(args, signature, event),
  );
}

/**
 * `source` with each event mapped; `return()` reaches the source at once, even while a `next()`
 * waits (an async generator's would wait for it: the change stream would stay open).
 */
function mapEvents(
  source: AsyncIterable<unknown>,
  map: (event: unknown) => ExecutionResult | Promise<ExecutionResult>,
): AsyncIterableIterator<ExecutionResult> {
  const events = source[Symbol.asyncIterator]();
  return {
    async next() {
      const step = await events.next();
      return step.done === true
        ? { done: true, value: undefined }
        : { done: false, value: await map(step.value) };
    },
    async return() {
      await events.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

const refusal = (message: string) => [
  new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } }),
];

/** A caller budget refused this subscription (src/budgets): retryable, after `retryAfter` s. */
const rateLimited = (refusal: RateLimitedError) => [
  new GraphQLError(refusal.message, {
    extensions: {
      code: refusal.code,
      retryable: true,
      retryAfter: refusal.retryAfter,
      budget: refusal.budget,
    },
  }),
];

/** The close code of a connection refused by a caller budget: HTTP's 429 in the private range. */
export const CLOSE_RATE_LIMITED = 4429;
/** The close code of a connection refused for want of room: WebSocket's "try again later". */
export const CLOSE_TRY_AGAIN_LATER = 1013;

/** A bound of `SUBSCRIPTIONS` refused this subscription; it may succeed once another ends. */
const overBound = (message: string) => [
  new GraphQLError(message, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', retryable: true } }),
];

export function startSubscriptionServer(deps: SubscriptionServerDeps): SubscriptionServer {
  const bounds = deps.bounds ?? SUBSCRIPTIONS;
  const wss = new WebSocketServer({
    server: deps.server,
    path: '/graphql',
    maxPayload: bounds.messageBytes,
    verifyClient: ({ req }, answer) =>
      deps.acceptsOrigin(req) ? answer(true) : answer(false, 403, 'Origin not allowed'),
  });
  const connections = new WeakMap<object, Connection>();
  const perClient = new Map<string, number>();
  const contextOf = createContextFactory(deps.components, deps.logger);
  const formatError = createErrorFormatter(deps.logger);
  const least = leastSubscriptionRole();
  const rules = [...specifiedRules, ...deps.validationRules];

  // Admission (src/budgets/admission.ts): an opened socket awaits its connection_init in a place
  // of its own, then becomes one of its caller's connections in onConnect.
  const admission = new ConnectionAdmission(bounds);
  const tickets = new WeakMap<WebSocket, AdmissionTicket>();
  wss.on('connection', (socket, req) => {
    const ticket = admission.open(clientAddress(req, deps.trustProxy), () =>
      socket.close(CLOSE_TRY_AGAIN_LATER, PUSHED_OUT),
    );
    tickets.set(socket, ticket);
    socket.once('close', () => admission.release(ticket));
  });

  const release = (connection: Connection, id: string) => {
    if (!connection.subscriptions.delete(id) || connection.caller === undefined) return;
    const key = clientKey(connection.caller);
    const left = (perClient.get(key) ?? 1) - 1;
    if (left === 0) perClient.delete(key);
    else perClient.set(key, left);
  };

  /** An operation's errors as its answer carries them: formatted, logged with its ids, tagged. */
  const formatErrors = (
    connection: Connection | undefined,
    id: string,
    errors: readonly GraphQLError[],
  ) => {
    const ids = connection?.operations.get(id);
    if (ids === undefined) return errors.map((error) => formatError(error.toJSON(), error));
    logErrorsWith(errors, deps.logger.child(ids));
    const answer = { errors: errors.map((error) => formatError(error.toJSON(), error)) };
    withRequestId(answer, ids.requestId);
    return answer.errors;
  };

  const disposable = useServer<Record<string, unknown> | undefined, { connection: Connection }>(
    {
      schema: deps.schema,
      connectionInitWaitTimeout: bounds.initWaitMs,
      subscribe: subscribeSharing,
      onConnect: async (ctx) => {
        const connection: Connection = {
          subscriptions: new Set(),
          operations: new Map(),
          ended: new AbortController(),
        };
        connections.set(ctx.extra, connection);
        const { socket, request } = ctx.extra;
        const ticket = tickets.get(socket);
        if (ticket === undefined) return false;
        const authorization = ctx.connectionParams?.authorization;
        const caller = deps.authenticate(
          typeof authorization === 'string' ? authorization : undefined,
        );
        if (caller === null || RANK[caller.role] < RANK[least]) return false;
        const holder = budgetHolder(caller, clientAddress(request, deps.trustProxy));
        const admitted = admission.admit(ticket, `${holder.role}:${holder.id}`);
        if (admitted !== true) {
          if (socket.readyState === socket.OPEN) socket.close(CLOSE_TRY_AGAIN_LATER, admitted);
          return false;
        }
        try {
          await deps.components.budgets.charge(holder, 'subscriptionConnections', 1);
        } catch (err) {
          if (!(err instanceof RateLimitedError)) throw err;
          socket.close(CLOSE_RATE_LIMITED, `Rate limited; retry after ${err.retryAfter} s`);
          return false;
        }
        connection.caller = caller;
        connection.holder = holder;
        return true;
      },
      onSubscribe: async (ctx, id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
        const connection = connections.get(ctx.extra);
        if (connection?.caller === undefined || connection.holder === undefined) {
          return refusal('The connection was not initialised');
        }
        // A WebSocket operation has no headers of its own: its id is its own.
        const ids = requestIdsOf({});
        connection.operations.set(id, ids);
        let document: DocumentNode;
        try {
          document = parse(payload.query, { maxTokens: DOCUMENT.tokens });
        } catch (err) {
          return [err instanceof GraphQLError ? err : new GraphQLError(String(err))];
        }
        const errors = validate(deps.schema, document, rules);
        if (errors.length > 0) return errors;
        const operation = getOperationAST(document, payload.operationName);
        if (operation?.operation !== 'subscription') {
          return refusal(
            'Only subscriptions go over WebSocket; send queries and mutations to POST /graphql',
          );
        }
        try {
          await deps.components.budgets.charge(connection.holder, 'subscriptions', 1);
        } catch (err) {
          if (err instanceof RateLimitedError) return rateLimited(err);
          throw err;
        }
        const contextValue = await contextOf({
          caller: connection.caller,
          holder: connection.holder,
          budget: { signal: connection.ended.signal },
          // A subscription creates and allocates nothing; its pages are bounded by the document
          // rules (depth, cost) as it cannot be batched.
          bounds: new RequestBounds(1, { usersPerRequest: 0, anonymous: false }),
          ids,
        });
        // Counted from here, with no await before it is handed to graphql-ws, which then calls
        // onComplete whatever happens to it (it ends, fails, or its connection closes).
        if (connection.ended.signal.aborted) return refusal('The connection is closed');
        if (connection.subscriptions.size >= bounds.perConnection) {
          return overBound(`At most ${bounds.perConnection} subscriptions per connection`);
        }
        const key = clientKey(connection.caller);
        const held = perClient.get(key) ?? 0;
        if (held >= bounds.perClient) {
          return overBound(
            `At most ${bounds.perClient} subscriptions per client (over all its connections)`,
          );
        }
        perClient.set(key, held + 1);
        connection.subscriptions.add(id);
        const args: ExecutionArgs = {
          schema: deps.schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables ?? undefined,
          contextValue,
        };
        signatures.set(
          args,
          [
            key,
            payload.operationName ?? '',
            payload.query,
            JSON.stringify(payload.variables ?? null),
          ].join('\u0000'),
        );
        return args;
      },
      onError: (ctx, id, _payload, errors) => {
        const formatted = formatErrors(connections.get(ctx.extra), id, errors);
        connections.get(ctx.extra)?.operations.delete(id);
        return formatted;
      },
      onNext: (ctx, id, _payload, _args, result) =>
        result.errors === undefined
          ? undefined
          : { ...result, errors: formatErrors(connections.get(ctx.extra), id, result.errors) },
      onComplete: (ctx, id) => {
        const connection = connections.get(ctx.extra);
        connection?.operations.delete(id);
        if (connection !== undefined) release(connection, id);
      },
      onClose: (ctx) => {
        const connection = connections.get(ctx.extra);
        if (connection === undefined) return;
        connection.ended.abort();
        for (const id of [...connection.subscriptions]) release(connection, id);
      },
    },
    wss,
    bounds.keepAliveMs,
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
