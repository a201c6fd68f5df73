/**
 * What every resolver gets, built fresh for each HTTP request (batched operations share it).
 *
 * Invariants: the users and invitees DataLoaders are per request (never shared, so one request never
 * sees another's cached users); `caller` is who the request's bearer token proves (src/auth, decided once per
 * request by the HTTP layer); `budget` is the request's deadline (./budget.ts), passed to every
 * domain write.
 */
import type DataLoader from 'dataloader';
import type { Caller } from '../auth/index.js';
import type { SequenceCatalog } from '../sequences/index.js';
import type { StrategyStats } from '../stats/index.js';
import type { InviteesRequest, User, UserPage, Users } from '../users/index.js';
import type { RequestBudget } from './budget.js';

/** The service's components, one set per service process. */
export interface ServiceComponents {
  users: Users;
  sequences: SequenceCatalog;
  stats: StrategyStats;
}

export interface GraphQLContext extends ServiceComponents {
  userLoader: DataLoader<string, User | null>;
  inviteesLoader: DataLoader<InviteesRequest, UserPage>;
  caller: Caller;
  budget: RequestBudget;
}

/** Who is calling and their deadline: what the HTTP layer knows of a request before GraphQL runs. */
export interface RequestIdentity {
  caller: Caller;
  budget: RequestBudget;
}

export function createContextFactory(components: ServiceComponents) {
  return async ({ caller, budget }: RequestIdentity): Promise<GraphQLContext> => ({
    ...components,
    userLoader: components.users.createLoader(),
    inviteesLoader: components.users.createInviteesLoader(),
    caller,
    budget,
  });
}
