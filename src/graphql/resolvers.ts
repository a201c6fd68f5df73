/**
 * Resolvers: call one component function, map its result to the API.
 *
 * No MongoDB access, no business rule and no input validation lives here: components own all three
 * (names, counts, page sizes and user input are checked where they are used, with the GraphQL
 * argument as `field`; the sequence catalog owns ownership and the `userid` rules) and hand over
 * plain domain objects (`User`, `SequenceState`). Who may call each root field is decided by
 * src/auth (`authorized` asks it before every root field runs, and refuses to start one after the
 * request's deadline). Expected failures of mutations become data (`orMutationError`, one model for
 * every mutation, every `createUsers` item and every `sequences` edge whose counter cannot be read);
 * everything else stays a top-level error. Every write gets the request's signal.
 */
import type { GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import {
  authorize,
  type Caller,
  requiredRole,
  sequenceAccess,
  usersPerRequest,
} from '../auth/index';
import type { BudgetStanding } from '../budgets/index';
import type { FeedEvent } from '../database/index';
import type { DomainError } from '../errors';
import type { SequenceKey, SequenceState } from '../sequences/index';
import {
  requireUserId,
  type CreationOptions,
  type User,
  type UserOrder as DomainUserOrder,
} from '../users/index';
import { sequenceConnection, sequenceEdge, userConnection, userEdge } from './connections';
import type { GraphQLContext } from './context';
import {
  ALLOCATIONS_PER_REQUEST,
  BATCHED_OPERATIONS,
  BUDGET_UNITS,
  DOCUMENT,
  LISTED_ITEMS_PER_REQUEST,
  PAGE_SIZE,
  SCANNED_VALUES_PER_REQUEST,
  VALUES_PER_ALLOCATION,
} from '../limits';
import { mutationErrorOf, orMutationError } from './errors';
import type { Resolvers } from './generated/resolvers-types';
import type { Role, UserOrder } from './generated/schema-types';
import { nodeById, nodesByIds, nodeType } from './nodes';

const sequenceKey = (name: string, scope: string | null | undefined): SequenceKey => ({
  name,
  scope: scope ?? null,
});

/** The fields given a value: GraphQL's null and an absent field both mean "the default". */
function givenFields<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]?: NonNullable<T[K]> } {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== null && value !== undefined),
  ) as { [K in keyof T]?: NonNullable<T[K]> };
}

const ORDER: Record<UserOrder, DomainUserOrder> = { ID_ASC: 'ASC', ID_DESC: 'DESC' };

/**
 * A creation's deadline and the owner of its idempotency keys (src/users/key-owners.ts): a client
 * by name, the admin, or anyone without a token, who can never reach a named owner's keys.
 */
function creationOptions({ caller, budget }: GraphQLContext): CreationOptions {
  const keyOwner =
    caller.role === 'anonymous'
      ? ('anonymous' as const)
      : { name: caller.role === 'client' ? `client:${caller.client}` : 'admin' };
  return { signal: budget.signal, keyOwner };
}

const ROLE: Record<Caller['role'], Role> = {
  anonymous: 'ANONYMOUS',
  client: 'CLIENT',
  admin: 'ADMIN',
};

/**
 * `query: Query` of every payload: the root value (Query's fields read nothing from it), so a
 * client can read any list afresh in the same response.
 */
const query = Object.freeze({});

/** The results of a batch (`createUsers`, `importUsers`), one per input, with their tallies. */
function batchResults(
  outcomes: Array<{ user: User; replayed: boolean } | { error: DomainError }>,
  schema: GraphQLSchema,
) {
  const results = outcomes.map((outcome, index) =>
    'user' in outcome
      ? {
          index,
          user: outcome.user,
          userEdge: userEdge(outcome.user),
          replayed: outcome.replayed,
          error: null,
        }
      : {
          index,
          user: null,
          userEdge: null,
          replayed: null,
          error: mutationErrorOf(outcome.error, schema),
        },
  );
  const replayed = results.filter((result) => result.replayed === true).length;
  const failed = results.filter((result) => result.error !== null).length;
  return { results, replayed, failed };
}

/** The page arguments of `users` and `invitees`, as the users component takes them. */
interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  order: UserOrder;
}

const pageRequest = ({ first, after, last, before, order }: PageArgs) => ({
  first,
  after,
  last,
  before,
  order: ORDER[order],
});

type RootResolver = (
  parent: unknown,
  args: unknown,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
) => unknown;

/**
 * Every field of `fields` (root fields, and the fields that lead to other users), checked against
 * the authorization table and the request's deadline before it runs.
 */
function authorized<Fields extends object>(
  type: 'Query' | 'Mutation' | 'User' | 'Sequence' | 'CreateUserPayload' | 'DeleteUserPayload',
  fields: Fields,
): Fields {
  return Object.fromEntries(
    Object.entries(fields as Record<string, RootResolver>).map(([field, resolve]) => [
      field,
      ((parent, args, context, info) => {
        context.budget.signal.throwIfAborted();
        authorize(context.caller, requiredRole(type, field), field);
        return resolve(parent, args, context, info);
      }) satisfies RootResolver,
    ]),
  ) as Fields;
}

/** The payload of a mutation that moves one sequence (`SetSequencePayload`): it, or the error. */
async function setSequencePayload(info: GraphQLResolveInfo, write: () => Promise<SequenceState>) {
  const written = await orMutationError(write, info.schema);
  return written.error !== undefined
    ? { sequence: null, error: written.error, query }
    : { sequence: written.value, error: null, query };
}

/** `confirmReservation` and `releaseReservation`: the same payload, one catalog call each. */
async function settleReservation(
  action: 'confirmReservation' | 'releaseReservation',
  id: string,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
) {
  const settled = await orMutationError(
    () =>
      context.sequences[action](id, sequenceAccess(context.caller), {
        signal: context.budget.signal,
      }),
    info.schema,
  );
  return settled.error !== undefined
    ? { value: null, sequence: null, error: settled.error, query }
    : { ...settled.value, error: null, query };
}

/** Charges held gapless values to the caller's `gaplessHeld`; past it, releases the values. */
async function chargeHeldValues(
  reservations: Array<{ id: string }>,
  context: GraphQLContext,
): Promise<void> {
  try {
    await context.budgets.charge(context.holder, 'gaplessHeld', reservations.length);
  } catch (refusal) {
    await context.sequences.settleReservations(
      reservations.map((reservation) => reservation.id),
      true,
      sequenceAccess(context.caller),
      { signal: context.budget.signal },
    );
    throw refusal;
  }
}

/** `confirmReservations` and `releaseReservations`: one result per id, with their tallies. */
async function settleReservations(
  frees: boolean,
  ids: string[],
  context: GraphQLContext,
  info: GraphQLResolveInfo,
) {
  const settled = await orMutationError(
    () =>
      context.sequences.settleReservations(ids, frees, sequenceAccess(context.caller), {
        signal: context.budget.signal,
      }),
    info.schema,
  );
  if (settled.error !== undefined) {
    return { results: [], settled: 0, failed: 0, error: settled.error, query };
  }
  const results = settled.value.map((outcome, index) =>
    'error' in outcome
      ? { index, value: null, sequence: null, error: mutationErrorOf(outcome.error, info.schema) }
      : { index, ...outcome, error: null },
  );
  const failed = results.filter((result) => result.error !== null).length;
  return { results, settled: results.length - failed, failed, error: null, query };
}

/** A budget as `viewer { limits { budgets } }` shows it. */
const callerBudget = (standing: BudgetStanding) => ({
  name: standing.budget,
  unit: BUDGET_UNITS[standing.budget],
  limit: standing.limit,
  windowSeconds: standing.windowSeconds,
  remaining: standing.remaining,
  resetsInSeconds: standing.resetsInSeconds,
});

export const resolvers: Resolvers = {
  Query: authorized('Query', {
    node: (_parent, { id }, context) => nodeById(id, context),

    nodes: (_parent, { ids }, context) => nodesByIds(ids, context),

    viewer: (_parent, _args, { caller }) => caller,

    user: (_parent, { id }, { userLoader }) => userLoader.load(requireUserId(id)),

    userByEmail: (_parent, { email }, { users }) => users.findByEmail(email),

    users: async (_parent, { filter, ...args }, { users }) =>
      userConnection(
        await users.page({
          ...pageRequest(args),
          filter: {
            createdWith: filter?.createdWith ?? undefined,
            invitedById: filter?.invitedById ?? undefined,
          },
        }),
      ),

    sequence: (_parent, { name, scope }, { sequences, caller }) =>
      sequences.get(sequenceKey(name, scope), sequenceAccess(caller)),

    sequences: async (_parent, { scope, ...page }, { sequences, caller }, info) =>
      sequenceConnection(
        await sequences.list(
          { ...page, ...(scope === undefined ? {} : { scope }) },
          sequenceAccess(caller),
        ),
        (error) => mutationErrorOf(error, info.schema),
      ),

    nextSequence: (_parent, { name, scope }, { sequences, caller }) =>
      sequences.peekNext(sequenceKey(name, scope), sequenceAccess(caller)),

    strategyStats: (_parent, _args, { stats }) => stats.snapshot(),
  } satisfies Resolvers['Query']),

  Mutation: authorized('Mutation', {
    createUser: async (_parent, { input, strategy }, context, info) => {
      const { users } = context;
      const created = await orMutationError(
        () => users.createUser(input, strategy, creationOptions(context)),
        info.schema,
      );
      if (created.error !== undefined) return { strategy, error: created.error, query };
      const { user, attempts, replayed } = created.value;
      return { strategy, user, userEdge: userEdge(user), attempts, replayed, error: null, query };
    },

    createUsers: async (_parent, { inputs, strategy }, context, info) => {
      const { users } = context;
      const batch = await orMutationError(
        () => users.createUsers(inputs, strategy, creationOptions(context)),
        info.schema,
      );
      if (batch.error !== undefined) {
        return {
          strategy,
          results: [],
          created: 0,
          replayed: 0,
          failed: 0,
          error: batch.error,
          query,
        };
      }
      const { results, replayed, failed } = batchResults(batch.value, info.schema);
      return {
        strategy,
        results,
        created: results.length - replayed - failed,
        replayed,
        failed,
        error: null,
        query,
      };
    },

    importUsers: async (_parent, { inputs }, context, info) => {
      const batch = await orMutationError(
        () => context.users.importUsers(inputs, { signal: context.budget.signal }),
        info.schema,
      );
      if (batch.error !== undefined) {
        return { results: [], imported: 0, replayed: 0, failed: 0, error: batch.error, query };
      }
      const { results, replayed, failed } = batchResults(batch.value, info.schema);
      return {
        results,
        imported: results.length - replayed - failed,
        replayed,
        failed,
        error: null,
        query,
      };
    },

    updateUser: async (_parent, { id, input }, { users, budget }, info) => {
      const updated = await orMutationError(
        () =>
          users.updateUser(
            id,
            {
              ...(input.name === undefined || input.name === null ? {} : { name: input.name }),
              ...(input.email === undefined ? {} : { email: input.email }),
            },
            { signal: budget.signal },
          ),
        info.schema,
      );
      return updated.error !== undefined
        ? { user: null, error: updated.error, query }
        : { user: updated.value, error: null, query };
    },

    deleteUser: async (_parent, { id }, { users, budget }, info) => {
      const deleted = await orMutationError(
        () => users.deleteUser(id, { signal: budget.signal }),
        info.schema,
      );
      return deleted.error !== undefined
        ? { deletedUserId: null, user: null, error: deleted.error, query }
        : { deletedUserId: deleted.value.id, user: deleted.value, error: null, query };
    },

    createSequence: async (_parent, { input }, { sequences, caller, budget }, info) => {
      const created = await orMutationError(
        () =>
          sequences.create(
            {
              ...sequenceKey(input.name, input.scope),
              ...givenFields({
                start: input.start,
                step: input.step,
                max: input.max,
                holdSeconds: input.holdSeconds,
                format: input.format,
                period: input.period,
                timeZone: input.timeZone,
              }),
              ...(input.gapless === true ? { gapless: true } : {}),
            },
            sequenceAccess(caller),
            { signal: budget.signal },
          ),
        info.schema,
      );
      return created.error !== undefined
        ? { sequence: null, sequenceEdge: null, error: created.error, query }
        : {
            sequence: created.value,
            sequenceEdge: sequenceEdge(created.value),
            error: null,
            query,
          };
    },

    allocateSequence: async (_parent, { name, count, scope }, context, info) => {
      // Refused whole (a top-level RATE_LIMITED) before anything is consumed. A count the catalog
      // refuses (BAD_USER_INPUT) consumes nothing and is not charged.
      const values = count ?? 1;
      if (values >= 1 && values <= VALUES_PER_ALLOCATION) {
        await context.budgets.charge(context.holder, 'sequenceValues', values);
      }
      const allocated = await orMutationError(
        () =>
          context.sequences.allocate(
            sequenceKey(name, scope),
            count ?? 1,
            sequenceAccess(context.caller),
            { signal: context.budget.signal },
          ),
        info.schema,
      );
      if (allocated.error !== undefined) {
        const refused = { range: null, sequence: null, reservation: null, reservations: [] };
        return { ...refused, error: allocated.error, query };
      }
      const { reservations } = allocated.value;
      // Whether the sequence is gapless is known once it answered: held values past the budget
      // are released at once (the next allocation hands them out), and the field refused.
      if (reservations.length > 0) await chargeHeldValues(reservations, context);
      return { ...allocated.value, reservation: reservations[0] ?? null, error: null, query };
    },

    confirmReservation: (_parent, { id }, context, info) =>
      settleReservation('confirmReservation', id, context, info),

    releaseReservation: (_parent, { id }, context, info) =>
      settleReservation('releaseReservation', id, context, info),

    confirmReservations: (_parent, { ids }, context, info) =>
      settleReservations(false, ids, context, info),

    releaseReservations: (_parent, { ids }, context, info) =>
      settleReservations(true, ids, context, info),

    setSequence: (_parent, { name, value, scope }, context, info) =>
      setSequencePayload(info, () =>
        context.sequences.setValue(
          sequenceKey(name, scope),
          value,
          sequenceAccess(context.caller),
          {
            signal: context.budget.signal,
          },
        ),
      ),

    setSequenceFormat: (_parent, { name, format, scope }, context, info) =>
      setSequencePayload(info, () =>
        context.sequences.setFormat(
          sequenceKey(name, scope),
          format,
          sequenceAccess(context.caller),
          { signal: context.budget.signal },
        ),
      ),

    advanceSequence: (_parent, { name, to, scope, period }, context, info) =>
      setSequencePayload(info, () =>
        context.sequences.advance(
          sequenceKey(name, scope),
          to,
          sequenceAccess(context.caller),
          { signal: context.budget.signal },
          period ?? null,
        ),
      ),
  } satisfies Resolvers['Mutation']),

  // Each subscription is authorized like a root field, then asks its component for a change feed;
  // events are `{ cursor, value }` from src/database/change-feed.ts.
  Subscription: {
    sequenceChanged: {
      subscribe: (_parent, { name, scope, after }, context) => {
        authorize(
          context.caller,
          requiredRole('Subscription', 'sequenceChanged'),
          'sequenceChanged',
        );
        return context.sequences.watch(
          sequenceKey(name, scope),
          sequenceAccess(context.caller),
          after ?? null,
        );
      },
      resolve: (event: FeedEvent<SequenceState>) => ({
        cursor: event.cursor,
        sequence: event.value,
      }),
    },
    userCreated: {
      subscribe: (_parent, { filter, after }, context) => {
        authorize(context.caller, requiredRole('Subscription', 'userCreated'), 'userCreated');
        return context.users.watchCreated(
          {
            createdWith: filter?.createdWith ?? undefined,
            invitedById: filter?.invitedById ?? undefined,
          },
          after ?? null,
        );
      },
      resolve: (event: FeedEvent<User>) => ({ cursor: event.cursor, user: event.value }),
    },
  } as Resolvers['Subscription'],

  UserConnection: {
    totalCount: (connection) => connection.totalCount(),
  },

  SequenceConnection: {
    totalCount: (connection) => connection.totalCount(),
  },

  Node: {
    __resolveType: (source) => nodeType(source),
  },

  Viewer: {
    role: (caller) => ROLE[caller.role],
    client: (caller) => (caller.role === 'client' ? caller.client : null),
    limits: (caller) => ({
      usersCreated: usersPerRequest(caller),
      sequenceAllocations: ALLOCATIONS_PER_REQUEST,
      listedItems: LISTED_ITEMS_PER_REQUEST,
      scannedValues: SCANNED_VALUES_PER_REQUEST,
      pageSize: PAGE_SIZE.max,
      valuesPerAllocation: VALUES_PER_ALLOCATION,
      batchedOperations: BATCHED_OPERATIONS,
      documentCost: DOCUMENT.cost,
      documentDepth: DOCUMENT.depth,
      aliases: DOCUMENT.aliases,
    }),
  },

  RequestLimits: {
    // Each budget is one read of the budgets collection: only when selected.
    budgets: async (_limits, _args, { budgets, holder }) =>
      (await budgets.standing(holder)).map(callerBudget),
  },

  CreateUserPayload: {
    ...authorized('CreateUserPayload', {
      inviter: (payload, _args, { userLoader }) =>
        payload.user?.invitedById == null ? null : userLoader.load(payload.user.invitedById),
    } satisfies Resolvers['CreateUserPayload']),
  },

  DeleteUserPayload: {
    ...authorized('DeleteUserPayload', {
      inviter: (payload, _args, { userLoader }) =>
        payload.user?.invitedById == null ? null : userLoader.load(payload.user.invitedById),
    } satisfies Resolvers['DeleteUserPayload']),
  },

  Sequence: {
    formattedNext: (sequence, _args, { sequences }) => sequences.formattedNext(sequence),
    pastPeriods: (sequence, { after, first }, { sequences }) =>
      sequences.pastPeriods(sequence, { after: after ?? null, first: first ?? PAGE_SIZE.default }),
    ...authorized('Sequence', {
      gaps: async (sequence, { after, first, period }, { sequences, budgets, holder }) => {
        await budgets.charge(holder, 'gapsScans', 1);
        return sequences.gaps(sequence, { after, first: first ?? PAGE_SIZE.default }, period);
      },
    } satisfies Resolvers['Sequence']),
  },

  User: {
    // The user's own data (a sign-up page reads the number of the user it created): no row.
    number: async (user, _args, { userNumbers }) => (await userNumbers)(Number(user.id)),
    ...authorized('User', {
      invitedBy: (user, _args, { userLoader }) =>
        user.invitedById === null ? null : userLoader.load(user.invitedById),
      invitees: async (user, args, { inviteesLoader }) =>
        userConnection(await inviteesLoader.load({ ...pageRequest(args), inviterId: user.id })),
    } satisfies Resolvers['User']),
  },
};
