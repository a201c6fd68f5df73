/**
 * Resolvers: call one component function, map its result to the API.
 *
 * No MongoDB access, no business rule and no input validation lives here: components own all three
 * (names, counts, page sizes and user input are checked where they are used, with the GraphQL
 * argument as `field`; the sequence catalog owns ownership and the `userid` rules). Who may call
 * each root field is decided by src/auth (`authorized` asks it before every root field runs, and
 * refuses to start one after the request's deadline). Numbers leave as JS
 * numbers (the Long scalar refuses anything it cannot send exactly); user ids leave as decimal
 * strings of the Int64 `_id`.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { authorize, requiredRole, sequenceAccess } from '../auth/index.js';
import { MAX_SEQUENCE_PAGE_SIZE, type SequenceKey } from '../sequences/index.js';
import type { UserDocument } from '../users/index.js';
import type { GraphQLContext } from './context.js';
import { itemErrorOf } from './errors.js';
import type { Resolvers } from './generated/resolvers-types.js';
import { DateTimeScalar, LongScalar } from './scalars.js';

const sequenceKey = (name: string, scope: string | null | undefined): SequenceKey => ({
  name,
  scope: scope ?? null,
});

const userId = (user: UserDocument) => user._id.toString();

type RootResolver = (
  parent: unknown,
  args: unknown,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
) => unknown;

/** Every root field of `fields`, checked against the authorization table and the deadline first. */
function authorized<Fields extends object>(type: 'Query' | 'Mutation', fields: Fields): Fields {
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

export const resolvers: Resolvers = {
  Long: LongScalar,
  DateTime: DateTimeScalar,

  Query: authorized('Query', {
    user: (_parent, { id }, { users }) => users.findById(id),

    users: async (_parent, { first, after }, { users }) => {
      const page = await users.page(first ?? 20, after);
      return {
        edges: page.users.map((user) => ({ cursor: userId(user), node: user })),
        pageInfo: {
          hasNextPage: page.hasNextPage,
          endCursor: page.users.length === 0 ? null : userId(page.users[page.users.length - 1]),
        },
      };
    },

    nextSequence: (_parent, { name, scope }, { sequences, caller }) =>
      sequences.peekNext(sequenceKey(name, scope), sequenceAccess(caller)),

    sequences: async (_parent, { scope }, { sequences, caller }) => {
      const page = await sequences.list(
        { first: MAX_SEQUENCE_PAGE_SIZE, ...(scope === undefined ? {} : { scope }) },
        sequenceAccess(caller),
      );
      return page.sequences;
    },

    strategyStats: (_parent, _args, { stats }) => stats.snapshot(),
  } satisfies Resolvers['Query']),

  Mutation: authorized('Mutation', {
    createUser: async (_parent, { input, strategy }, { users, budget }) => {
      const created = await users.createUser(input, strategy, { signal: budget.signal });
      return {
        user: created.user,
        strategy,
        attempts: created.attempts,
        replayed: created.replayed,
      };
    },

    createUsers: async (_parent, { inputs, strategy }, { users, budget }) => {
      const outcomes = await users.createUsers(inputs, strategy, { signal: budget.signal });
      const results = outcomes.map((outcome, index) =>
        'user' in outcome
          ? { index, user: outcome.user, error: null }
          : { index, user: null, error: itemErrorOf(outcome.error) },
      );
      const created = results.filter((result) => result.user !== null).length;
      return { strategy, results, created, failed: results.length - created };
    },

    createSequence: (_parent, { input }, { sequences, caller, budget }) => {
      const key = sequenceKey(input.name, input.scope);
      return sequences.create(
        {
          ...key,
          ...(input.start === null || input.start === undefined ? {} : { start: input.start }),
          ...(input.step === null || input.step === undefined ? {} : { step: input.step }),
          ...(input.max === null || input.max === undefined ? {} : { max: input.max }),
        },
        sequenceAccess(caller),
        { signal: budget.signal },
      );
    },

    allocateSequence: async (_parent, { name, count, scope }, { sequences, caller, budget }) => {
      const key = sequenceKey(name, scope);
      const { range } = await sequences.allocate(key, count ?? 1, sequenceAccess(caller), {
        signal: budget.signal,
      });
      return { name: key.name, scope: key.scope ?? null, ...range };
    },

    setSequence: (_parent, { name, value, scope }, { sequences, caller, budget }) =>
      sequences.setValue(sequenceKey(name, scope), value, sequenceAccess(caller), {
        signal: budget.signal,
      }),
  } satisfies Resolvers['Mutation']),

  User: {
    id: (user) => userId(user),
    email: (user) => user.email ?? null,
    invitedBy: (user, _args, { userLoader }) =>
      user.invitedById === undefined || user.invitedById === null
        ? null
        : userLoader.load(user.invitedById.toNumber()),
  },
};
