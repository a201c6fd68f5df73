/**
 * What a whole HTTP request asks for, read from Apollo's own parsed and validated document of each
 * operation before any of them executes: how many users it would create, how many sequence
 * allocations it would make, how many items its pages could list and how many stored values its
 * `gaps` calls could read, summed over every alias, fragment and batched operation, against the
 * bounds of src/limits.ts. Which fields create users, allocate, list or scan is `FIELD_LIMITS`
 * there, looked up by the field's parent type.
 *
 * Why before execution: batched operations run concurrently and aliases run one after another, so a
 * bound checked field by field lets the first fields through before a later one is refused; the
 * whole request is refused instead, and nothing is created. Listed items are bounded for the event
 * loop's sake: graphql-armor's cost grows with depth, not page size, so 10 batched operations of
 * aliased 100-item pages passed it while answering tens of thousands of items, and `/health` waited
 * behind them. A page's size is its `first` or `last` (else the default), multiplied through
 * nesting, and so are the values a `gaps` call may read: its page is a few runs, but finding them
 * reads up to a full scan of stored ids, so one request naming `userid` 100 times in `nodes(ids:)`
 * held the database for seconds while every other request waited. The counts are upper bounds
 * (`@skip`/`@include` are ignored).
 *
 * Parsed once: the plan is made in Apollo's `didResolveOperation`, on the document Apollo
 * parsed, validated and cached, for the operation Apollo selected; an APQ hash sent alone is planned
 * from the document it stands for, because Apollo has resolved it by then. A batch's operations
 * reach that hook one by one, so each waits there (`RequestBounds.check`) until every operation of
 * the request is planned or has failed before its plan; only then is the total known, and either
 * all of them run or none does. A single operation never waits. An operation whose tally reads no
 * variable (a `createUser`, a page of a fixed size) is walked on its first request only and its
 * tally served from then on (`constantTallies`): walking it again at every request was a measurable
 * share of a `createUser`'s CPU (bench/results/0.4.md, "CPU levers of 0.4"). The refusal is recorded here and
 * answered by the HTTP layer as one error (src/http/admission.ts); each operation is stopped with it.
 * Every answer of a planned operation carries the request's total in `extensions.cost`
 * (`{ usersCreated, sequenceAllocations, listedItems, scannedValues }`, the names of
 * `Viewer.limits`), so a client
 * sees how close it came to the bounds before it meets one.
 */
import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import {
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type IntValueNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { RateLimitedError } from '../budgets/index';
import { DomainError } from '../errors';
import {
  ALLOCATIONS_PER_REQUEST,
  FIELD_LIMITS,
  GAPS,
  LISTED_ITEMS_PER_REQUEST,
  PAGE_SIZE,
  SCANNED_VALUES_PER_REQUEST,
} from '../limits';
import type { Logger } from '../logger';
import type { ObservedRequest } from '../stats/index';
import type { RequestIds } from '../telemetry/index';
import { logErrorsWith, withinErrorBounds, withRequestId } from './errors';

export interface RequestTally {
  usersCreated: number;
  sequenceAllocations: number;
  /** The most items the pages can list: page sizes multiplied through nesting, summed. */
  listedItems: number;
  /** The most stored values its `gaps` calls can read, multiplied through the lists above them. */
  scannedValues: number;
}

/** A tally of nothing. */
function emptyTally(): RequestTally {
  return { usersCreated: 0, sequenceAllocations: 0, listedItems: 0, scannedValues: 0 };
}

/** Adds `part` to `total`. */
function addTally(total: RequestTally, part: Readonly<RequestTally>): void {
  total.usersCreated += part.usersCreated;
  total.sequenceAllocations += part.sequenceAllocations;
  total.listedItems += part.listedItems;
  total.scannedValues += part.scannedValues;
}

/** Why a whole request is refused: answered by the HTTP layer as one error, nothing run. */
export class RequestBoundsError extends DomainError {
  constructor(
    readonly code: 'BAD_USER_INPUT' | 'UNAUTHENTICATED' | 'SERVICE_UNAVAILABLE',
    message: string,
    readonly status: number,
    field?: string,
  ) {
    super(message, {
      ...(field === undefined ? {} : { field }),
      ...(code === 'SERVICE_UNAVAILABLE' ? { retryable: true } : {}),
    });
  }
}

/**
 * A charge that failed other than by refusing (the budgets' store and their in-process fallback
 * both failed): the request is not run unbudgeted, it is refused as the database being away is.
 */
function chargeFailure(err: unknown): RateLimitedError | RequestBoundsError {
  return err instanceof RateLimitedError
    ? err
    : new RequestBoundsError(
        'SERVICE_UNAVAILABLE',
        "The caller's budgets could not be charged; retry the request",
        503,
      );
}

/** Who may create how many users; the rest of the bounds are the same for everyone. */
export interface CallerBounds {
  usersPerRequest: number;
  anonymous: boolean;
  /**
   * Charges the caller's budgets (src/budgets) with the request's total once it passed every
   * bound, before anything runs; throws (or rejects with) RATE_LIMITED to refuse it whole.
   */
  charge?: (total: Readonly<RequestTally>) => void | Promise<void>;
}

function refusalOf(total: RequestTally, caller: CallerBounds): RequestBoundsError | null {
  const maxUsers = caller.usersPerRequest;
  if (total.usersCreated > maxUsers && caller.anonymous) {
    return new RequestBoundsError(
      'UNAUTHENTICATED',
      `Creating more than ${maxUsers} user in one request needs a client or admin token (Authorization: Bearer <token>)`,
      401,
    );
  }
  if (total.usersCreated > maxUsers) {
    return new RequestBoundsError(
      'BAD_USER_INPUT',
      `One request may create at most ${maxUsers} users in total, over all its aliases and batched operations; this one asks for ${total.usersCreated}`,
      400,
      'inputs',
    );
  }
  if (total.listedItems > LISTED_ITEMS_PER_REQUEST) {
    return new RequestBoundsError(
      'BAD_USER_INPUT',
      `One request may list at most ${LISTED_ITEMS_PER_REQUEST} items over all its pages (page sizes multiplied through nesting, over every alias and batched operation); this one may list ${total.listedItems}: ask for smaller pages`,
      400,
      'first',
    );
  }
  if (total.scannedValues > SCANNED_VALUES_PER_REQUEST) {
    return new RequestBoundsError(
      'BAD_USER_INPUT',
      `One request's gaps calls may read at most ${SCANNED_VALUES_PER_REQUEST} stored values (each call counts as the ${GAPS.idsScanned} it may read, multiplied through the lists above it, over every alias and batched operation); this one may read ${total.scannedValues}: ask for the gaps of fewer sequences per request`,
      400,
      'gaps',
    );
  }
  if (total.sequenceAllocations > ALLOCATIONS_PER_REQUEST) {
    return new RequestBoundsError(
      'BAD_USER_INPUT',
      `One request may call allocateSequence at most ${ALLOCATIONS_PER_REQUEST} times, over all its aliases and batched operations; this one asks for ${total.sequenceAllocations}`,
      400,
      'count',
    );
  }
  return null;
}

/**
 * One HTTP request's bounds, shared by its operations (one, or each of a batch): each operation adds
 * its tally, or settles without one when it failed before its plan (a parse or validation error).
 */
export class RequestBounds {
  private readonly total: RequestTally = emptyTally();
  private unsettled: number;
  private decided = false;
  /** The total is known and being decided (a budget charge may still be on its way). */
  private deciding = false;
  /** Set once every operation is planned, when the total passes a bound or a budget. */
  refusal: RequestBoundsError | RateLimitedError | null = null;
  private readonly waiting: Array<() => void> = [];
  /** Closed before every operation was planned: what still waits never runs. */
  private closed = false;

  constructor(
    operations: number,
    private readonly caller: CallerBounds,
  ) {
    this.unsettled = operations;
  }

  /**
   * Adds one operation's tally; resolves once every operation of the request is planned, and throws
   * the refusal when the total passes a bound. A single operation is decided at once.
   */
  check(tally: Readonly<RequestTally>): Promise<void> | void {
    addTally(this.total, tally);
    this.settleOne();
    if (this.decided) return this.verdict();
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.verdict());
  }

  /** What the request's planned operations ask for so far (all of them, once decided). */
  get used(): RequestTally {
    return { ...this.total };
  }

  /** An operation that ended before its plan (it asks for nothing). */
  settleWithoutPlan(): void {
    this.settleOne();
  }

  /**
   * The HTTP layer, once Apollo answered: an operation still waiting (its batch was refused by
   * Apollo before every operation reached its plan) must never run.
   */
  close(): void {
    if (this.decided || this.deciding) return;
    this.closed = true;
    this.decide();
  }

  private settleOne(): void {
    this.unsettled -= 1;
    if (this.unsettled > 0 || this.deciding || this.decided) return;
    this.deciding = true;
    this.refusal ??= refusalOf(this.total, this.caller);
    let charged: void | Promise<void> = undefined;
    try {
      if (this.refusal === null && !this.closed) charged = this.caller.charge?.(this.total);
    } catch (err) {
      this.refusal = chargeFailure(err);
    }
    if (charged === undefined) return this.decide();
    charged.then(
      () => this.decide(),
      (err: unknown) => {
        this.refusal = chargeFailure(err);
        this.decide();
      },
    );
  }

  private decide(): void {
    this.decided = true;
    for (const wake of this.waiting.splice(0)) wake();
  }

  private verdict(): void {
    if (this.refusal !== null) throw this.refusal;
    if (this.closed) {
      throw new RequestBoundsError(
        'BAD_USER_INPUT',
        'The request was answered before all its operations were planned',
        400,
      );
    }
  }
}

type Variables = Record<string, unknown>;

/** The value the variable `name` holds in the request (or its default). */
type VariableValue = (name: string) => unknown;

/**
 * The value a variable holds: the request's, else the operation's default. Own properties only, as
 * graphql-js reads them: `$constructor` or `$__proto__` not sent must not read what every object
 * inherits.
 */
function variableValue(name: string, variables: Variables, defaults: Variables): unknown {
  if (Object.hasOwn(variables, name)) return variables[name];
  return Object.hasOwn(defaults, name) ? defaults[name] : undefined;
}

/** How many items a list argument holds (a single value coerces to a list of one). */
function listLength(node: ValueNode | undefined, valueOf: VariableValue): number {
  if (node === undefined) return 0;
  if (node.kind === Kind.LIST) return node.values.length;
  if (node.kind === Kind.NULL) return 0;
  if (node.kind !== Kind.VARIABLE) return 1;
  const value = valueOf(node.name.value);
  if (Array.isArray(value)) return value.length;
  return value === null || value === undefined ? 0 : 1;
}

function defaultsOf(operation: OperationDefinitionNode): Variables {
  // No prototype: a variable named `__proto__` is then a property like any other.
  const defaults: Variables = Object.create(null) as Variables;
  for (const definition of operation.variableDefinitions ?? []) {
    const value = definition.defaultValue;
    if (value === undefined) continue;
    defaults[definition.variable.name.value] =
      value.kind === Kind.LIST ? value.values : value.kind === Kind.NULL ? null : value;
  }
  return defaults;
}

/** The whole number an Int argument holds (inline, or through a variable or its default). */
function intValue(node: ValueNode | undefined, valueOf: VariableValue) {
  const value = node?.kind === Kind.VARIABLE ? valueOf(node.name.value) : node;
  const literal =
    (value as ValueNode | undefined)?.kind === Kind.INT
      ? Number((value as IntValueNode).value)
      : value;
  return typeof literal === 'number' && Number.isSafeInteger(literal) ? literal : null;
}

/**
 * The tallies of operations whose walk read no variable: a function of the schema and the document
 * alone, so each is walked once. Keyed by the operation's node, which Apollo's document cache
 * hands out again for the same document text (a document parsed again is a new node, walked once
 * more); weakly, so a document Apollo's cache let go is let go here too.
 */
const constantTallies = new WeakMap<
  OperationDefinitionNode,
  { schema: GraphQLSchema; tally: Readonly<RequestTally> }
>();

/** What one operation asks for (the document is valid: every field and fragment exists). */
export function tallyOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  rawVariables: unknown,
): Readonly<RequestTally> {
  const known = constantTallies.get(operation);
  if (known !== undefined && known.schema === schema) return known.tally;
  const variables =
    typeof rawVariables === 'object' && rawVariables !== null && !Array.isArray(rawVariables)
      ? (rawVariables as Variables)
      : {};
  let defaults: Variables | undefined;
  let readVariables = false;
  const valueOf: VariableValue = (name) => {
    readVariables = true;
    defaults ??= defaultsOf(operation);
    return variableValue(name, variables, defaults);
  };
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition]] : [],
    ),
  );
  // What a fragment asks for is the same at every spread (its type is its own), so it is tallied
  // once: walking every spread is exponential in nested fragments (a fragment bomb).
  const tallies = new Map<string, RequestTally>();
  const inProgress = new Set<string>();
  const tally = (selections: SelectionSetNode, parent: GraphQLNamedType): RequestTally => {
    const total = emptyTally();
    const add = (part: RequestTally) => addTally(total, part);
    for (const selection of selections.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition?.name.value;
        add(tally(selection.selectionSet, schema.getType(condition ?? parent.name) ?? parent));
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        const type = fragment && schema.getType(fragment.typeCondition.name.value);
        // A cycle is cut (validation refuses it anyway).
        if (fragment === undefined || type === undefined || inProgress.has(name)) continue;
        let part = tallies.get(name);
        if (part === undefined) {
          inProgress.add(name);
          part = tally(fragment.selectionSet, type);
          inProgress.delete(name);
          tallies.set(name, part);
        }
        add(part);
      } else {
        const name = selection.name.value;
        const field =
          isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
        const limit = FIELD_LIMITS[parent.name]?.[name];
        const argumentNode = (argument: string) =>
          selection.arguments?.find((a) => a.name.value === argument)?.value;
        // What the selections below ask for, once per item when this field is a list.
        const below =
          selection.selectionSet === undefined || field === undefined
            ? null
            : tally(selection.selectionSet, getNamedType(field.type));
        if (limit !== undefined && 'createsUsers' in limit) {
          const perItem = limit.createsUsers;
          total.usersCreated +=
            perItem === 1 ? 1 : listLength(argumentNode(perItem.perItemOf), valueOf);
        }
        if (limit !== undefined && 'allocates' in limit) total.sequenceAllocations += 1;
        if (limit !== undefined && 'lists' in limit) {
          // A page holds `first` or `last` items (else the default); a list one per item given.
          const size = Math.max(
            limit.lists === 'page'
              ? (intValue(argumentNode('first'), valueOf) ??
                  intValue(argumentNode('last'), valueOf) ??
                  PAGE_SIZE.default)
              : listLength(argumentNode(limit.lists.perItemOf), valueOf),
            0,
          );
          total.listedItems += size + size * (below?.listedItems ?? 0);
          total.scannedValues += (limit.scans ?? 0) + size * (below?.scannedValues ?? 0);
        } else if (below !== null) {
          total.listedItems += below.listedItems;
          total.scannedValues += below.scannedValues;
        }
      }
    }
    return total;
  };
  const root =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  const total = root ? tally(operation.selectionSet, root) : emptyTally();
  if (!readVariables) constantTallies.set(operation, { schema, tally: Object.freeze(total) });
  return total;
}

/**
 * Where the plugin finds the request's bounds, ids and logger: the GraphQL context
 * (src/graphql/context.ts).
 */
export interface BoundedContext {
  bounds: RequestBounds;
  ids: RequestIds;
  logger: Logger;
  observed?: ObservedRequest;
}

/** A settled promise to answer a hook with, shared: a hook that did its work at once makes none. */
const DONE = Promise.resolve();

/**
 * The Apollo plugin that plans each operation on Apollo's document and checks the request, and
 * finishes each answer's errors: bounded in number, each naming the request's id, logged (when
 * formatting logs) to the request's logger; and tells the request's metrics which operation it
 * answered and with which error codes.
 *
 * One listener object for every request (its per-operation state is a `WeakSet` of Apollo's
 * request contexts), and `errorPlugins`' own hooks run from it only when a request has errors:
 * Apollo calls every hook of every request listener on every request, so each listener cost a
 * `createUser` its promises (with graphql-armor's field-suggestion mask as a listener of its own,
 * the two were about 4% of the service's CPU: bench/results/0.4.md, "CPU levers of 0.4").
 * `errorPlugins` are plugins whose only request hook is `didEncounterErrors` (that mask, which stays
 * graphql-armor's code).
 */
export function requestBoundsPlugin<Context extends BoundedContext>(
  errorPlugins: readonly ApolloServerPlugin<Context>[] = [],
): ApolloServerPlugin<Context> {
  const planned = new WeakSet<object>();
  const listener: GraphQLRequestListener<Context> = {
    didResolveOperation(requestContext) {
      const { schema, document, operation, request, contextValue } = requestContext;
      planned.add(requestContext);
      if (operation === undefined) {
        contextValue.bounds.settleWithoutPlan();
        return DONE;
      }
      const tally = tallyOperation(schema, document, operation, request.variables);
      return contextValue.bounds.check(tally) ?? DONE;
    },
    willSendResponse(requestContext) {
      const { contextValue, response } = requestContext;
      const wasPlanned = planned.has(requestContext);
      if (!wasPlanned) contextValue.bounds.settleWithoutPlan();
      if (response.body.kind === 'single') {
        const result = response.body.singleResult;
        withinErrorBounds(result);
        withRequestId(result, contextValue.ids.requestId);
        contextValue.observed?.answered(
          requestContext.operation?.operation,
          requestContext.operationName,
          (result.errors ?? []).map((error) => String(error.extensions?.code)),
        );
        // How close the whole request came to its bounds (`Viewer.limits` names them).
        if (wasPlanned)
          result.extensions = { ...result.extensions, cost: contextValue.bounds.used };
      }
      return DONE;
    },
    // Apollo calls it only for a request with errors, before it formats them.
    async didEncounterErrors(requestContext) {
      logErrorsWith(requestContext.errors, requestContext.contextValue.logger);
      for (const plugin of errorPlugins) {
        const own = await plugin.requestDidStart?.(requestContext);
        await own?.didEncounterErrors?.(requestContext);
      }
    },
  };
  const started = Promise.resolve(listener);
  return { requestDidStart: () => started };
}
