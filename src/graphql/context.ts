/**
 * What every resolver gets, built fresh for each HTTP request (batched operations share it).
 *
 * Invariants: the users and invitees DataLoaders are per request (never shared, so one request never
 * sees another's cached users) and made on first use, since most requests (a `createUser`) never
 * read a user; `caller` is who the request's bearer token proves (src/auth, decided once per
 * request by the HTTP layer), `holder` whose budgets it draws on (src/budgets); `budget` is the request's deadline (./budget.ts), passed to every
 * domain write.
 */
import type DataLoader from 'dataloader';
import type { Caller } from '../auth/index';
import type { BudgetHolder, Budgets } from '../budgets/index';
import type { ServiceComponents } from '../components';
import type { SequenceCatalog } from '../sequences/index';
import type { StrategyStats } from '../stats/index';
import type { IdStrategy } from '../strategies/index';
import type { InviteesRequest, User, UserPage, Users } from '../users/index';
import type { RequestBudget } from './budget';
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
}

/**
 * Who is calling, their deadline and the request's bounds: what the HTTP layer knows of a request
 * before GraphQL runs.
 */
export type RequestIdentity = Pick<GraphQLContext, 'caller' | 'holder' | 'budget' | 'bounds'>;

/**
 * One request's context. A class rather than an object literal: a literal that spreads the
 * components and defines the loaders as getters cost about 5 µs per request (issue 14, measured);
 * an instance of one shape costs a twentieth of that.
 */
class RequestContext implements GraphQLContext {
  readonly users: Users;
  readonly sequences: SequenceCatalog;
  readonly stats: StrategyStats<IdStrategy>;
  readonly budgets: Budgets;
  /**
   * The loaders, made on first use. A holder object rather than fields of their own: Apollo runs
   * every operation on a shallow copy of the context, and the copies of one batched request must
   * share the loaders.
   */
  private readonly loaders: Partial<Pick<GraphQLContext, 'userLoader' | 'inviteesLoader'>> = {};

  constructor(
    components: ServiceComponents,
    readonly caller: Caller,
    readonly holder: BudgetHolder,
    readonly budget: RequestBudget,
    readonly bounds: RequestBounds,
  ) {
    this.users = components.users;
    this.sequences = components.sequences;
    this.stats = components.stats;
    this.budgets = components.budgets;
  }

  get userLoader(): GraphQLContext['userLoader'] {
    return (this.loaders.userLoader ??= this.users.createLoader());
  }

  get inviteesLoader(): GraphQLContext['inviteesLoader'] {
    return (this.loaders.inviteesLoader ??= this.users.createInviteesLoader());
  }
}

export function createContextFactory(components: ServiceComponents) {
  return ({ caller, holder, budget, bounds }: RequestIdentity): Promise<GraphQLContext> =>
    Promise.resolve(new RequestContext(components, caller, holder, budget, bounds));
}
