/**
 * urql graphcache configuration for this API: `cacheExchange(graphcacheOptions)` and no other
 * cache code keeps every view right after every mutation (test/client/caches.test.ts runs each
 * mutation -> view check against the real server).
 *
 * What it does, and why:
 * - `possibleTypes` (generated from schema.graphql, ./generated/possible-types.ts): fragments on
 *   `Node` match by the schema, with no "Heuristic Fragment Matching" warning.
 * - `keys`: the types without an id (payloads, connections, edges, values) are embedded in their
 *   parent, as graphcache asks to be told; `User` and `Sequence` are keyed by `id` by default.
 * - Lists (`users`, `sequences`, `User.invitees`) come in two shapes, chosen per query: by default
 *   a paged view, each page (its `first`/`after`/`last`/`before`) kept as the server answered it
 *   (graphcache's own behaviour: page 2 shows page 2); a field marked `@_infinite` (a local
 *   directive, never sent) is an infinite list whose pages merge (`relayPagination`).
 * - `resolvers`: `user(id:)`, `node(id:)` and
 *   `sequence(name:, scope:)` read the normalized object any other answer wrote (the id scheme of
 *   ./ids.ts); `nextSequence` is the cached `Sequence.next`, which allocations update.
 * - `updates`: graphcache cannot place a keyless edge into a cached page without that page's
 *   document, so a mutation invalidates exactly the lists it changed (the `users` lists whose
 *   filter the new user matches, its inviter's `invitees`, the `sequences` lists of its scope) and
 *   graphcache refetches them when they are next read (so their totals are the server's); a
 *   `userCreated` event does the same for the lists its user joins; a deleted user is removed from the cache,
 *   so `user(id:)` asks the server again (and learns it is gone) and every list that held it is
 *   read afresh. Objects a payload returns (`user`, `sequence`) update in place.
 */
import { type Exchange, makeOperation, mapExchange } from '@urql/core';
import type { Cache, CacheExchangeOpts, Data, FieldArgs } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import possibleTypesResult from './generated/possible-types';
import { sequenceId, typenameOfId } from './ids';

/** Types without an id: embedded in whatever holds them. */
const EMBEDDED = [
  'Viewer',
  'UserConnection',
  'UserEdge',
  'SequenceConnection',
  'SequenceEdge',
  'PageInfo',
  'MutationError',
  'SequenceRange',
  'StrategyStats',
  'CreateUsersResult',
  'CreateUserPayload',
  'CreateUsersPayload',
  'UpdateUserPayload',
  'DeleteUserPayload',
  'CreateSequencePayload',
  'AllocateSequencePayload',
  'SetSequencePayload',
];

type Args = Record<string, unknown>;

/**
 * A lookup that reads the normalized object: its own cached answer when it has one (null stays
 * null), else the object of `typename` and `id` when the cache holds it, else a miss.
 */
const lookup =
  (target: (args: Args) => [string | null, string]) =>
  (
    _parent: Data,
    args: FieldArgs,
    cache: Cache,
    info: { parentKey: string; fieldName: string },
  ) => {
    const own = cache.resolve(info.parentKey, info.fieldName, args ?? undefined);
    if (own !== undefined) return own;
    const [typename, id] = target((args ?? {}) as Args);
    if (typename === null) return undefined;
    const key = cache.keyOfEntity({ __typename: typename, id });
    return key !== null && cache.resolve(key, 'id') !== undefined ? key : undefined;
  };

const sequenceOf = (args: Args): [string, string] => [
  'Sequence',
  sequenceId(String(args.name), args.scope as string | null | undefined),
];

/** Invalidates every cached `fieldName` of `entity` whose arguments `matches` accepts. */
function invalidateFields(
  cache: Cache,
  entity: string | null,
  fieldName: string,
  matches: (args: Args) => boolean = () => true,
): void {
  if (entity === null) return;
  for (const field of cache.inspectFields(entity)) {
    if (field.fieldName === fieldName && matches((field.arguments ?? {}) as Args)) {
      cache.invalidate(entity, field.fieldName, field.arguments ?? undefined);
    }
  }
}

const userKey = (cache: Cache, id: string) => cache.keyOfEntity({ __typename: 'User', id });

/**
 * A user was created with `strategy` by `inviterId`: the lists it joins are read afresh. Either
 * undefined is not known (an event that did not select it): every list it may join is.
 */
function userCreated(
  cache: Cache,
  inviterId: string | null | undefined,
  strategy: string | undefined,
): void {
  invalidateFields(cache, 'Query', 'users', (args) => {
    const filter = (args.filter ?? {}) as Args;
    return (
      (filter.createdWith == null || strategy === undefined || filter.createdWith === strategy) &&
      (filter.invitedById == null || inviterId === undefined || filter.invitedById === inviterId)
    );
  });
  if (typeof inviterId === 'string') {
    invalidateFields(cache, userKey(cache, inviterId), 'invitees');
  }
  // The userid counter moved.
  invalidateFields(cache, 'Query', 'nextSequence', (args) => args.name === 'userid' && !args.scope);
  cache.invalidate({ __typename: 'Sequence', id: 'userid' }, 'next');
  cache.invalidate({ __typename: 'Sequence', id: 'userid' }, 'value');
}

/** Whether a mutation's payload says it failed. */
const failed = (payload: unknown) =>
  payload === null || payload === undefined || (payload as { error?: unknown }).error != null;

/** A sequence's next value changed: `nextSequence` of it is read from the Sequence again. */
function sequenceMoved(cache: Cache, args: Args): void {
  const id = sequenceOf(args)[1];
  invalidateFields(cache, 'Query', 'nextSequence', (fieldArgs) => sequenceOf(fieldArgs)[1] === id);
}

export const graphcacheOptions: CacheExchangeOpts = {
  // The schema's interfaces (generated from schema.graphql): fragments on `Node` match by them.
  possibleTypes: possibleTypesResult.possibleTypes,
  keys: Object.fromEntries(EMBEDDED.map((typename) => [typename, () => null])),
  resolvers: {
    Query: {
      user: lookup((args) => ['User', String(args.id)]),
      node: lookup((args) => [typenameOfId(String(args.id)), String(args.id)]),
      sequence: lookup(sequenceOf),
      nextSequence: (_parent, args, cache) => {
        const next = cache.resolve({ __typename: 'Sequence', id: sequenceOf(args)[1] }, 'next');
        return typeof next === 'number' ? next : cache.resolve('Query', 'nextSequence', args);
      },
    },
  },
  directives: {
    infinite: () => relayPagination(),
  },
  updates: {
    Subscription: {
      userCreated(result, _args, cache) {
        // The event's user, as far as it was selected.
        const user = (result.userCreated as { user?: Args } | null)?.user;
        if (user === undefined) return;
        userCreated(
          cache,
          user.invitedById as string | null | undefined,
          user.createdWith as string | undefined,
        );
      },
    },
    Mutation: {
      createUser(result, args, cache) {
        if (failed(result.createUser)) return;
        userCreated(
          cache,
          ((args.input as Args).invitedById as string | null | undefined) ?? null,
          (args.strategy as string | undefined) ?? 'COUNTER',
        );
      },
      createUsers(result, args, cache) {
        const payload = result.createUsers as { created?: number } | null;
        if (payload === null || !payload.created) return;
        for (const input of (args.inputs as Args[]) ?? []) {
          userCreated(
            cache,
            (input.invitedById as string | null | undefined) ?? null,
            (args.strategy as string | undefined) ?? 'COUNTER',
          );
        }
      },
      updateUser(result, _args, cache) {
        // The user updates in place; an email lookup may now find someone else, or no one.
        if (!failed(result.updateUser)) invalidateFields(cache, 'Query', 'userByEmail');
      },
      deleteUser(result, args, cache) {
        if (failed(result.deleteUser)) return;
        const key = userKey(cache, String(args.id));
        const inviterId = key === null ? null : cache.resolve(key, 'invitedById');
        invalidateFields(cache, 'Query', 'users');
        if (typeof inviterId === 'string') {
          invalidateFields(cache, userKey(cache, inviterId), 'invitees');
        }
        invalidateFields(cache, 'Query', 'userByEmail');
        cache.invalidate({ __typename: 'User', id: String(args.id) });
      },
      createSequence(result, args, cache) {
        if (failed(result.createSequence)) return;
        const scope = ((args.input as Args).scope as string | null | undefined) ?? null;
        invalidateFields(
          cache,
          'Query',
          'sequences',
          (fieldArgs) => fieldArgs.scope == null || fieldArgs.scope === scope,
        );
      },
      allocateSequence(result, args, cache) {
        if (!failed(result.allocateSequence)) sequenceMoved(cache, args);
      },
      setSequence(result, args, cache) {
        if (!failed(result.setSequence)) sequenceMoved(cache, args);
      },
    },
  },
};

/**
 * Adds the header the service's CSRF prevention accepts (`apollo-require-preflight`) to every
 * operation, so urql's default, queries as `GET` within the URL limit, is accepted: put it before
 * `fetchExchange`. Without it a `GET` query is refused (400) and the client must send POSTs.
 */
export const preflightExchange: Exchange = mapExchange({
  onOperation: (operation) => {
    const given = operation.context.fetchOptions;
    return makeOperation(operation.kind, operation, {
      ...operation.context,
      fetchOptions: () => {
        const options = (typeof given === 'function' ? given() : given) ?? {};
        const headers: Record<string, string> = {};
        new Headers(options.headers).forEach((value, name) => (headers[name] = value));
        return { ...options, headers: { ...headers, 'apollo-require-preflight': 'true' } };
      },
    });
  },
});
