/**
 * Resolvers: call one component function, map its result to the API.
 *
 * No MongoDB access, no business rule and no input validation lives here: components own all three
 * (names, counts, page sizes and user input are checked where they are used, with the GraphQL
 * argument as `field`, and `users.assertIdIsFree` guards moving the `userid` counter). Who may call
 * each root field is decided by src/auth (`authorized` asks it before every root field runs, and
 * refuses to start one after the request's deadline). Numbers leave as JS
 * numbers (the Long scalar refuses anything it cannot send exactly); user ids leave as decimal
 * strings of the Int64 `_id`.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { authorize, requiredRole } from '../auth/index.js';
import type { SequenceKey } from '../sequences/index.js';
import type { UserDocument } from '../users/index.js';
import type { GraphQLContext } from './context.js';
import { itemErrorOf } from './errors.js';
import type { Resolvers } from './generated/resolvers-types.js';
import { DateTimeScalar, LongScalar } from './scalars.js';

/** The counter that feeds `users._id`; only it has a drift. */
const USER_ID_SEQUENCE = 'userid';

const sequenceKey = (name: string, scope: string | null | undefined): SequenceKey => ({
  name,
  scope: scope ?? null,
});

const isUserIdCounter = (key: SequenceKey) =>
  key.name === USER_ID_SEQUENCE && (key.scope ?? null) === null;

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

    nextSequence: (_parent, { name, scope }, { sequences }) =>
      sequences.peekNext(sequenceKey(name, scope)),

    sequences: (_parent, { scope }, { sequences }) =>
      sequences.list(scope === undefined ? {} : { scope }),

    strategyStats: (_parent, _args, { stats }) => stats.snapshot(),
  } satisfies Resolvers['Query']),

  Mutation: authorized('Mutation', {
    createUser: async (_parent, { input, strategy }, { users }) => {
      const created = await users.createUser(input, strategy);
      return {
        user: created.user,
        strategy,
        attempts: created.attempts,
        replayed: created.replayed,
      };
    },

    createUsers: async (_parent, { inputs, strategy }, { users }) => {
      const outcomes = await users.createUsers(inputs, strategy);
      const results = outcomes.map((outcome, index) =>
        'user' in outcome
          ? { index, user: outcome.user, error: null }
          : { index, user: null, error: itemErrorOf(outcome.error) },
      );
      const created = results.filter((result) => result.user !== null).length;
      return { strategy, results, created, failed: results.length - created };
    },

    createSequence: (_parent, { input }, { sequences }) => {
      const key = sequenceKey(input.name, input.scope);
      return sequences.create({
        ...key,
        ...(input.start === null || input.start === undefined ? {} : { start: input.start }),
        ...(input.step === null || input.step === undefined ? {} : { step: input.step }),
        ...(input.max === null || input.max === undefined ? {} : { max: input.max }),
      });
    },

    allocateSequence: async (_parent, { name, count, scope }, { sequences }) => {
      const key = sequenceKey(name, scope);
      const range = await sequences.allocate(key, count ?? 1);
      return { name: key.name, scope: key.scope ?? null, ...range };
    },

    setSequence: (_parent, { name, value, scope }, context) => {
      const key = sequenceKey(name, scope);
      return context.sequences.setValue(
        key,
        value,
        isUserIdCounter(key) ? (next) => context.users.assertIdIsFree(next) : undefined,
      );
    },
  } satisfies Resolvers['Mutation']),

  Sequence: {
    drift: async (sequence, _args, { users }) =>
      isUserIdCounter(sequence) ? sequence.value - (await users.maxId()) : null,
  },

  User: {
    id: (user) => userId(user),
    email: (user) => user.email ?? null,
    invitedBy: (user, _args, { userLoader }) =>
      user.invitedById === undefined || user.invitedById === null
        ? null
        : userLoader.load(user.invitedById.toNumber()),
  },
};
