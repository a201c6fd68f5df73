/**
 * The rules every subscription meets, whichever transport carries it (graphql-ws over a WebSocket,
 * ./subscriptions.ts; GraphQL over Server-Sent Events, ./subscriptions-sse.ts): one implementation
 * of each, which the transports only call.
 *
 * Contract:
 * - Who (`whoIs`): the token is checked once per connection, by src/auth, as a request's header
 *   is: a token that proves no one, or a caller that may call no subscription field (the role
 *   table), is refused. Each subscription is then authorized by the role table again (its
 *   resolver), as a root field over HTTP is. The connection's budget is charged only once the
 *   transport has room for it (`admit`, then `chargeConnection`), so a connection refused for
 *   want of room costs nothing.
 * - What (`start`): only subscriptions; queries and mutations go over HTTP, where the per-request
 *   bounds and the deadline hold. A document is parsed with the HTTP layer's token limit and
 *   validated with graphql-armor's depth, cost, alias and directive rules, as over HTTP. Resume
 *   cursors (`after:`) are the resolvers' (src/users/changes.ts, src/sequences/changes.ts), so
 *   both transports resume alike.
 * - How many (`connect`, `start`; ./subscription-holdings.ts): connections per process,
 *   subscriptions per connection and per client, counted over both transports. A subscription
 *   counts from `start` until `end` or its connection's `disconnect`. Which connections a process
 *   admits per address and per caller (`admission`, `admit`; src/budgets/admission.ts) is one set
 *   of places for both transports too: a caller's WebSockets and SSE streams count together.
 * - Each connection has one context (./context.ts) whose signal aborts at `disconnect`; a
 *   subscription's change stream closes when it ends or its connection closes.
 * - Events are executed once per signature (./subscription-execution.ts): document, operation
 *   name, variables and caller, all a resolver may depend on.
 */
import { ApolloServerErrorCode } from '@apollo/server/errors';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  GraphQLError,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
  type ValidationRule,
} from 'graphql';
import { type Caller, FIELD_ACCESS, requiredRole } from '../auth/index';
import {
  type AdmissionRefusal,
  type AdmissionTicket,
  budgetHolder,
  ConnectionAdmission,
  RateLimitedError,
  type BudgetHolder,
} from '../budgets/index';
import type { ServiceComponents } from '../components';
import { DOCUMENT } from '../limits';
import type { Logger } from '../logger';
import { createContextFactory } from './context';
import { requestIdsOf, type RequestIds } from '../telemetry/index';
import { createErrorFormatter, logErrorsWith, withRequestId } from './errors';
import { RequestBounds } from './request-bounds';
import { signSubscription } from './subscription-execution';
import {
  type HeldConnection,
  SubscriptionHoldings,
  type SubscriptionBounds,
} from './subscription-holdings';

export interface SubscriptionRulesDeps {
  schema: GraphQLSchema;
  /** The HTTP layer's authenticator: a header value to the caller it proves, or null. */
  authenticate: (authorization?: string) => Caller | null;
  components: ServiceComponents;
  /** The GraphQL-level rules over HTTP besides graphql-js's own (graphql-armor's). */
  validationRules: readonly ValidationRule[];
  logger: Logger;
  bounds: SubscriptionBounds;
}

/** What a client sends to start one subscription (graphql-ws's `subscribe`, an SSE request). */
export interface SubscriptionRequest {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/** One connection of a transport: its caller once identified, its count, its end. */
export interface SubscriberConnection {
  caller?: Caller;
  /** Whose budgets it draws on (src/budgets): the caller, or its address without a token. */
  holder?: BudgetHolder;
  /** Each operation's request id (src/telemetry), from its start until it ends. */
  readonly operations: Map<string, RequestIds>;
  readonly held: HeldConnection;
  readonly ended: AbortController;
}

/** Who a connection's caller is, before anything is charged (`whoIs`). */
export interface SubscriberIdentity {
  caller: Caller;
  holder: BudgetHolder;
}

const RANK = { anonymous: 0, client: 1, admin: 2 } as const;

/** The least role any subscription field needs: a caller below it may not even connect. */
export function leastSubscriptionRole(): keyof typeof RANK {
  const roles = Object.keys(FIELD_ACCESS.Subscription ?? {}).map((field) =>
    requiredRole('Subscription', field),
  );
  return roles.reduce((least, role) => (RANK[role] < RANK[least] ? role : least), 'admin');
}

/** Who counts as one client for the per-client bound. */
export function clientKey(caller: Caller): string {
  return caller.role === 'client' ? `client:${caller.client}` : caller.role;
}

/** A subscription refused for what it asked (BAD_USER_INPUT). */
export const refusal = (message: string): readonly GraphQLError[] => [
  new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } }),
];

/** A caller budget refused this subscription (src/budgets): retryable, after `retryAfter` s. */
const rateLimited = (refused: RateLimitedError): readonly GraphQLError[] => [
  new GraphQLError(refused.message, {
    extensions: {
      code: refused.code,
      retryable: true,
      retryAfter: refused.retryAfter,
      budget: refused.budget,
    },
  }),
];

/** `error` with the code Apollo Server gives it over HTTP. */
function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}

/**
 * The document of a subscription request, parsed and validated as over HTTP (graphql-js's rules
 * and `rules`), or the errors that refuse it (`transport` names the transport in the refusal of a
 * query or mutation).
 */
export function checkSubscriptionDocument(
  schema: GraphQLSchema,
  rules: readonly ValidationRule[],
  request: SubscriptionRequest,
  transport: string,
): DocumentNode | readonly GraphQLError[] {
  let document: DocumentNode;
  try {
    document = parse(request.query, { maxTokens: DOCUMENT.tokens });
  } catch (err) {
    return [
      withCode(
        err instanceof GraphQLError ? err : new GraphQLError(String(err)),
        ApolloServerErrorCode.GRAPHQL_PARSE_FAILED,
      ),
    ];
  }
  const errors = validate(schema, document, [...specifiedRules, ...rules]);
  if (errors.length > 0)
    return errors.map((error) => withCode(error, ApolloServerErrorCode.GRAPHQL_VALIDATION_FAILED));
  const operation = getOperationAST(document, request.operationName);
  if (operation?.operation !== 'subscription') {
    return refusal(
      `Only subscriptions go over ${transport}; send queries and mutations to POST /graphql`,
    );
  }
  return document;
}

export class SubscriptionRules {
  readonly schema: GraphQLSchema;
  readonly bounds: SubscriptionBounds;
  /** The places of connections per address (before they say who they are) and per caller. */
  readonly admission: ConnectionAdmission;
  private readonly holdings: SubscriptionHoldings;
  private readonly contextOf: ReturnType<typeof createContextFactory>;
  private readonly formatError: ReturnType<typeof createErrorFormatter>;
  private readonly least = leastSubscriptionRole();
  private readonly validationRules: readonly ValidationRule[];

  constructor(private readonly deps: SubscriptionRulesDeps) {
    this.schema = deps.schema;
    this.bounds = deps.bounds;
    this.holdings = new SubscriptionHoldings(deps.bounds);
    this.admission = new ConnectionAdmission(deps.bounds);
    this.contextOf = createContextFactory(deps.components, deps.logger);
    this.formatError = createErrorFormatter(deps.logger);
    this.validationRules = deps.validationRules;
  }

  /** A new connection, or null past the connections bound (the transport refuses it). */
  connect(): SubscriberConnection | null {
    const held = this.holdings.connect();
    return held === null ? null : { held, ended: new AbortController(), operations: new Map() };
  }

  /**
   * Who is connecting: the caller `authorization` proves and whose budgets it draws on, or
   * `forbidden` (no such caller, or one below every subscription field's role). Charges nothing, so
   * a transport can check its room for the caller first (`chargeConnection` then charges).
   */
  whoIs(authorization: unknown, address: string): SubscriberIdentity | 'forbidden' {
    const caller = this.deps.authenticate(
      typeof authorization === 'string' ? authorization : undefined,
    );
    if (caller === null || RANK[caller.role] < RANK[this.least]) return 'forbidden';
    return { caller, holder: budgetHolder(caller, address) };
  }

  /**
   * Makes the connection `who`'s once its `subscriptionConnections` budget (src/budgets) grants
   * one; answers the budget's `RateLimitedError` otherwise. Called once the transport has room for
   * the connection: a connection refused for want of room costs its caller no budget.
   */
  async chargeConnection(
    connection: SubscriberConnection,
    who: SubscriberIdentity,
  ): Promise<RateLimitedError | null> {
    try {
      await this.deps.components.budgets.charge(who.holder, 'subscriptionConnections', 1);
    } catch (err) {
      if (err instanceof RateLimitedError) return err;
      throw err;
    }
    connection.caller = who.caller;
    connection.holder = who.holder;
    connection.held.clientKey = clientKey(who.caller);
    return null;
  }

  /**
   * `who`'s connection of `ticket` (opened with `admission.open`) takes one of its caller's places:
   * true, or why not (the transport closes it). Asked before `chargeConnection`.
   */
  admit(ticket: AdmissionTicket, who: SubscriberIdentity): true | AdmissionRefusal {
    return this.admission.admit(ticket, `${who.holder.role}:${who.holder.id}`);
  }

  /** Subscription `id` of `connection`, checked and counted: the arguments to run it, or errors. */
  async start(
    connection: SubscriberConnection,
    id: string,
    request: SubscriptionRequest,
    transport: string,
  ): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const { caller, holder } = connection;
    if (caller === undefined || holder === undefined) {
      return refusal('The connection was not initialised');
    }
    // An operation of a long-lived connection has no headers of its own: its id is its own.
    const ids = requestIdsOf({});
    connection.operations.set(id, ids);
    const document = checkSubscriptionDocument(
      this.deps.schema,
      this.validationRules,
      request,
      transport,
    );
    if (!('kind' in document)) return document;
    try {
      await this.deps.components.budgets.charge(holder, 'subscriptions', 1);
    } catch (err) {
      if (err instanceof RateLimitedError) return rateLimited(err);
      throw err;
    }
    const contextValue = await this.contextOf({
      caller,
      holder,
      ids,
      budget: { signal: connection.ended.signal },
      // A subscription creates and allocates nothing; its pages are bounded by the document
      // rules (depth, cost) as it cannot be batched.
      bounds: new RequestBounds(1, { usersPerRequest: 0, anonymous: false }),
    });
    // Counted from here, with no await before it is handed to the transport, which then calls
    // `end` whatever happens to it (it ends, fails, or its connection closes).
    if (connection.ended.signal.aborted) return refusal('The connection is closed');
    const refused = this.holdings.hold(connection.held, id);
    if (refused !== null) return refused;
    const args: ExecutionArgs = {
      schema: this.deps.schema,
      document,
      operationName: request.operationName,
      variableValues: request.variables ?? undefined,
      contextValue,
    };
    signSubscription(
      args,
      [
        clientKey(caller),
        request.operationName ?? '',
        request.query,
        JSON.stringify(request.variables ?? null),
      ].join('\u0000'),
    );
    return args;
  }

  /** Subscription `id` ended (completed, failed or stopped by its client). */
  end(connection: SubscriberConnection, id: string): void {
    connection.operations.delete(id);
    this.holdings.release(connection.held, id);
  }

  /** The connection closed: its context aborts, its subscriptions and its place are given back. */
  disconnect(connection: SubscriberConnection): void {
    connection.ended.abort();
    this.holdings.disconnect(connection.held);
  }

  /**
   * Errors as clients see them (src/graphql/errors.ts, as over HTTP); those of a started operation
   * are logged with its ids and carry its request id.
   */
  formatErrors(
    errors: readonly GraphQLError[],
    connection?: SubscriberConnection,
    id?: string,
  ): GraphQLFormattedError[] {
    const formatted = errors.map((error) => this.formatError(error.toJSON(), error));
    const ids = id === undefined ? undefined : connection?.operations.get(id);
    if (ids === undefined) return formatted;
    logErrorsWith(errors, this.deps.logger.child(ids));
    const answer = { errors: formatted };
    withRequestId(answer, ids.requestId);
    return answer.errors;
  }

  /** An event's result with its errors formatted; undefined when it has none (sent as it is). */
  formatResult(
    result: ExecutionResult,
    connection?: SubscriberConnection,
    id?: string,
  ): FormattedExecutionResult | undefined {
    if (result.errors === undefined) return undefined;
    return { ...result, errors: this.formatErrors(result.errors, connection, id) };
  }
}
