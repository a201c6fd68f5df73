/**
 * What every resolver gets, built fresh for each HTTP request (batched operations share it).
 *
 * Invariants: the users and invitees DataLoaders are per request (never shared, so one request never
 * sees another's cached users) and made on first use, since most requests (a `createUser`) never
 * read a user; `caller` is who the request's bearer token proves (src/auth, decided once per
 * request by the HTTP layer), `holder` whose budgets it draws on (src/budgets); `budget` is the
 * request's deadline (src/request-deadline.ts), passed to every domain write; `userNumbers` reads
 * `userid`'s display formats once per request that asks for a user's number; `ids` are the
 * request's id and trace id (src/telemetry), and `logger` a child of the service's logger carrying
 * them, made on first use (most requests log nothing).
 */
import type DataLoader from 'dataloader';
import type { Caller } from '../auth/index';
import type { BudgetHolder, Budgets } from '../budgets/index';
import type { ServiceComponents } from '../components';
import type { SequenceCatalog } from '../sequences/index';
import type { ObservedRequest, RequestStats, StrategyStats } from '../stats/index';
import type { IdStrategy } from '../strategies/index';
import type { Logger } from '../logger';
import type { RequestIds } from '../telemetry/index';
import type { InviteesRequest, User, UserPage, Users } from '../users/index';
import type { RequestBudget } from '../request-deadline';
import type { RequestBounds } from './request-bounds';

export interface GraphQLContext extends ServiceComponents {
  userLoader: DataLoader<string, User | null>;
  inviteesLoader: DataLoader<InviteesRequest, UserPage>;
  caller: Caller;
  /** Whose budgets the request draws on (src/budgets): the caller, or its address without a token. */
  holder: BudgetHolder;
  budget: RequestBudget;
  /** What the request's operations ask for in all (./request-bounds.ts), shared by a batch. */
  bounds: RequestBounds;
  ids: RequestIds;
  /** The service's logger with the request's ids on every line. */
  logger: Logger;
  /** What the request's metrics record of its operations (HTTP requests only). */
  observed?: ObservedRequest;
  /** How a user id is written as its number (`User.number`): one read of the formats a request. */
  userNumbers: Promise<(id: number) => string | null>;
}

/**
 * Who is calling, their deadline, the request's bounds and ids: what the HTTP layer knows of a
 * request before GraphQL runs.
 */
export type RequestIdentity = Pick<
  GraphQLContext,
  'caller' | 'holder' | 'budget' | 'bounds' | 'ids' | 'observed'
>;

/**
 * One request's context. A class rather than an object literal: a literal that spreads the
 * components and defines the loaders as getters cost about 5 µs per request (measured);
 * an instance of one shape costs a twentieth of that.
 */
class RequestContext implements GraphQLContext {
  readonly users: Users;
  readonly sequences: SequenceCatalog;
  readonly stats: StrategyStats<IdStrategy>;
  readonly requests: RequestStats;
  readonly budgets: Budgets;
  /**
   * The loaders and the logger, made on first use. A holder object rather than fields of their
   * own: Apollo runs every operation on a shallow copy of the context, and the copies of one
   * batched request must share them.
   */
  private readonly madeOnFirstUse: Partial<
    Pick<GraphQLContext, 'userLoader' | 'inviteesLoader' | 'logger' | 'userNumbers'>
  > = {};

  constructor(
    components: ServiceComponents,
    readonly caller: Caller,
    readonly holder: BudgetHolder,
    readonly budget: RequestBudget,
    readonly bounds: RequestBounds,
    readonly ids: RequestIds,
    private readonly serviceLogger: Logger,
    readonly observed: ObservedRequest | undefined,
  ) {
    this.users = components.users;
    this.sequences = components.sequences;
    this.stats = components.stats;
    this.requests = components.requests;
    this.budgets = components.budgets;
  }

  get userLoader(): GraphQLContext['userLoader'] {
    return (this.madeOnFirstUse.userLoader ??= this.users.createLoader());
  }

  get inviteesLoader(): GraphQLContext['inviteesLoader'] {
    return (this.madeOnFirstUse.inviteesLoader ??= this.users.createInviteesLoader());
  }

  get userNumbers(): GraphQLContext['userNumbers'] {
    return (this.madeOnFirstUse.userNumbers ??= this.sequences.displayOf(
      this.users.idSequence.name,
    ));
  }

  get logger(): Logger {
    return (this.madeOnFirstUse.logger ??= this.serviceLogger.child(this.ids));
  }
}

export function createContextFactory(components: ServiceComponents, logger: Logger) {
  return ({
    caller,
    holder,
    budget,
    bounds,
    ids,
    observed,
  }: RequestIdentity): Promise<GraphQLContext> =>
    Promise.resolve(
      new RequestContext(components, caller, holder, budget, bounds, ids, logger, observed),
    );
}
