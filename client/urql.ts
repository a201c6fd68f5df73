/**
 * urql graphcache configuration for this API: `cacheExchange(graphcacheOptions)` and no other
 * cache code keeps every view right after every mutation and every `userCreated` event
 * (test/client/caches.test.ts and test/client/lists.test.ts run them against the real server).
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
 * - `updates`: a created user (a `createUser` or `createUsers` payload, or a `userCreated` event)
 *   joins every cached `users` page whose filter it matches and its inviter's `invitees`, in place,
 *   by the rules of ./lists.ts shared with ./apollo.ts (its place in the loaded window, a full page
 *   passing its far item on, every such list counted up once whether the payload or the event
 *   comes first); a deleted user leaves every page and is counted out of every list its filter
 *   matched (a page that held it shrinks by one), then leaves the cache, so `user(id:)` asks the
 *   server again. graphcache keeps a page's keyless edges under the page's field, so a page is
 *   read and written back whole through a fragment of its field and arguments, built from what
 *   the cache holds of it. What is too little known to place or count (a filter on a field the
 *   event or payload did not select) is invalidated and read afresh, as are the `sequences` lists
 *   a created sequence joins. Objects a payload returns (`user`, `sequence`) update in place.
 */
import { type Exchange, makeOperation, mapExchange } from '@urql/core';
import type {
  Cache,
  CacheExchangeOpts,
  Data,
  Directive,
  FieldArgs,
  FieldInfo,
} from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { type DocumentNode, parse } from 'graphql';
import possibleTypesResult from './generated/possible-types';
import { sequenceId, typenameOfId } from './ids';
import {
  type CachedList,
  countedIn,
  type ListEdge,
  listHolds,
  type PageArgs,
  pageOf,
  type UserFacts,
  usersKey,
  withEdge,
  withoutItem,
} from './lists';

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

/** A user edge as the page fragments read and write it. */
type UserEdge = ListEdge & { node?: { __typename?: string; id?: string } | null };
const userIdOf = (edge: UserEdge) => String(edge.node?.id);

/** The arguments that choose a page, apart from those that choose the list's content. */
const PAGING = new Set(['first', 'after', 'last', 'before']);

/** The cached lists read as infinite (`@_infinite`), per cache: `entity.field` and content. */
const infiniteLists = new WeakMap<object, Set<string>>();

const listName = (entity: string, fieldName: string, args: Args | null | undefined) =>
  `${entity}.${fieldName}:${JSON.stringify(
    Object.keys(args ?? {})
      .filter((name) => !PAGING.has(name))
      .sort()
      .map((name) => [name, (args as Args)[name]]),
  )}`;

/** `@_infinite`: the pages merge (`relayPagination`), and the cache remembers the list is one. */
const infinite: Directive = () => {
  const merged = relayPagination();
  return (parent, args, cache, info) => {
    let names = infiniteLists.get(cache);
    if (names === undefined) {
      names = new Set();
      infiniteLists.set(cache, names);
    }
    names.add(listName(info.parentKey, info.fieldName, args));
    return merged(parent, args, cache, info);
  };
};

/**
 * A fragment that reads and writes one cached page of `field` on `entity` with what the cache
 * holds of it (its count and pageInfo as far as they were selected), or null when it holds no
 * page there. graphcache stores a page's edges under the page's field, so edges are placed by
 * writing the page back whole through the same field and arguments.
 */
function pageFragment(cache: Cache, entity: string, field: FieldInfo): DocumentNode | null {
  const list = cache.resolve(entity, field.fieldKey);
  if (typeof list !== 'string') return null;
  const held = new Set(cache.inspectFields(list).map((info) => info.fieldName));
  if (!held.has('edges')) return null;
  const pageInfo = cache.resolve(list, 'pageInfo');
  const pageInfoFields =
    typeof pageInfo === 'string'
      ? cache
          .inspectFields(pageInfo)
          .map((info) => info.fieldName)
          .filter((name) => name !== '__typename')
      : [];
  const args = Object.keys(field.arguments ?? {});
  const typename = entity === 'Query' ? 'Query' : String(cache.resolve(entity, '__typename'));
  return parse(
    `fragment CachedPage on ${typename} { ${typename === 'Query' ? '' : 'id '}${field.fieldName}` +
      `${args.length === 0 ? '' : `(${args.map((name) => `${name}: $${name}`).join(', ')})`} {` +
      ` edges { cursor node { id } }${held.has('totalCount') ? ' totalCount' : ''}` +
      `${pageInfoFields.length === 0 ? '' : ` pageInfo { ${pageInfoFields.join(' ')} }`} } }`,
  );
}

/** What a page edit answers: the page's new value, or `REFETCH` (it is read afresh when next read). */
const REFETCH = Symbol('refetch');

/**
 * Applies `edit` to every cached page of `fieldName` on `entity` (`page`: its paging arguments;
 * `infinite`: it is a page of an infinite list) and writes back what changed. A page the cache
 * cannot read whole with its fragment is read afresh.
 */
function editPages(
  cache: Cache,
  entity: string | null,
  fieldName: string,
  edit: (
    list: CachedList<UserEdge>,
    args: Args,
    shape: { page: PageArgs; infinite: boolean },
  ) => unknown,
): void {
  if (entity === null) return;
  const infiniteNames = infiniteLists.get(cache);
  for (const field of cache.inspectFields(entity)) {
    if (field.fieldName !== fieldName) continue;
    const variables = field.arguments ?? {};
    const args = variables as Args;
    const fragment = pageFragment(cache, entity, field);
    const cached = fragment === null ? null : cache.readFragment<Data>(fragment, entity, variables);
    const list = cached?.[fieldName];
    const edited =
      fragment === null || list === undefined || list === null
        ? REFETCH
        : edit(list as CachedList<UserEdge>, args, {
            page: pageOf(args),
            infinite: infiniteNames?.has(listName(entity, fieldName, args)) ?? false,
          });
    if (edited === REFETCH) cache.invalidate(entity, fieldName, field.arguments ?? undefined);
    else if (edited !== list) {
      cache.writeFragment(fragment!, { ...cached, [fieldName]: edited }, variables);
    }
  }
}

/** What a payload or an event says of a created user: its id, and its strategy and inviter. */
interface CreatedUser extends UserFacts {
  id: string;
}

/**
 * A created user joins the cached lists it belongs to, in place (./lists.ts), counted once per
 * cache whether its payload or its event comes first; a list it may belong to but too little is
 * known of (a filter on what the event did not select) is read afresh.
 */
function userCreated(cache: Cache, user: CreatedUser): void {
  const seen = countedIn(cache);
  if (!seen.has(user.id)) {
    seen.add(user.id);
    const edge: UserEdge = {
      __typename: 'UserEdge',
      cursor: user.id,
      node: { __typename: 'User', id: user.id },
    };
    const place = (
      list: CachedList<UserEdge>,
      args: Args,
      shape: { page: PageArgs; infinite: boolean },
    ) =>
      withEdge(
        list,
        edge,
        user.id,
        userIdOf,
        args.order !== 'ID_DESC',
        shape.page,
        !shape.infinite,
      );
    editPages(cache, 'Query', 'users', (list, args, shape) => {
      const holds = listHolds(usersKey(args), user);
      if (holds === undefined) return REFETCH;
      return holds ? place(list, args, shape) : list;
    });
    if (typeof user.invitedById === 'string') {
      editPages(cache, userKey(cache, user.invitedById), 'invitees', place);
    }
  }
  // The userid counter moved.
  invalidateFields(cache, 'Query', 'nextSequence', (args) => args.name === 'userid' && !args.scope);
  cache.invalidate({ __typename: 'Sequence', id: 'userid' }, 'next');
  cache.invalidate({ __typename: 'Sequence', id: 'userid' }, 'value');
}

/** A create payload's user (or one `createUsers` result's): from `user` or `userEdge`. */
function createdIn(
  payload: unknown,
  input: Args | undefined,
  strategy: unknown,
): CreatedUser | 'unknown' {
  const { user, userEdge } = (payload ?? {}) as {
    user?: Args | null;
    userEdge?: { node?: Args | null } | null;
  };
  const node = user ?? userEdge?.node;
  if (node?.id === undefined || node.id === null) return 'unknown';
  return {
    id: String(node.id),
    createdWith: (node.createdWith as string | undefined) ?? ((strategy as string) || 'COUNTER'),
    invitedById: (input?.invitedById as string | null | undefined) ?? null,
  };
}

/**
 * A created user from a payload; one the payload did not select leaves the lists it may be in
 * (every `users` list, its inviter's `invitees`) to be read afresh.
 */
function createdFromPayload(
  cache: Cache,
  payload: unknown,
  input: Args | undefined,
  strategy: unknown,
): void {
  const user = createdIn(payload, input, strategy);
  if (user !== 'unknown') return userCreated(cache, user);
  invalidateFields(cache, 'Query', 'users');
  if (typeof input?.invitedById === 'string') {
    invalidateFields(cache, userKey(cache, input.invitedById), 'invitees');
  }
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
    infinite,
  },
  updates: {
    Subscription: {
      userCreated(result, _args, cache) {
        // The event's user, as far as it was selected.
        const user = (result.userCreated as { user?: Args } | null)?.user;
        if (user?.id === undefined) return;
        userCreated(cache, {
          id: String(user.id),
          createdWith: user.createdWith as string | undefined,
          invitedById: user.invitedById as string | null | undefined,
        });
      },
    },
    Mutation: {
      createUser(result, args, cache) {
        if (failed(result.createUser)) return;
        createdFromPayload(cache, result.createUser, args.input as Args, args.strategy);
      },
      createUsers(result, args, cache) {
        const payload = result.createUsers as { created?: number; results?: Args[] } | null;
        const inputs = (args.inputs as Args[]) ?? [];
        if (payload === null || payload.created === 0) return;
        // Without its results selected, every input may have been created.
        const results = payload.results ?? inputs.map((): Args => ({}));
        results.forEach((item, position) => {
          if (failed(item)) return;
          const index = typeof item.index === 'number' ? item.index : position;
          createdFromPayload(cache, item, inputs[index], args.strategy);
        });
      },
      updateUser(result, _args, cache) {
        // The user updates in place; an email lookup may now find someone else, or no one.
        if (!failed(result.updateUser)) invalidateFields(cache, 'Query', 'userByEmail');
      },
      deleteUser(result, args, cache) {
        if (failed(result.deleteUser)) return;
        const id = String(args.id);
        const key = userKey(cache, id);
        // What the cache or the payload knows of the deleted user, to tell which lists held it.
        const payload = result.deleteUser as { user?: Args | null; inviter?: Args | null };
        const known = (field: string) => {
          const cached = key === null ? undefined : cache.resolve(key, field);
          return cached !== undefined ? cached : payload.user?.[field];
        };
        const invitedById = known('invitedById') as string | null | undefined;
        const user: UserFacts = {
          createdWith: known('createdWith') as string | undefined,
          invitedById:
            invitedById !== undefined || !payload.inviter
              ? invitedById
              : String(payload.inviter.id),
        };
        const isDeleted = (edge: UserEdge) => edge.node?.id === id;
        editPages(cache, 'Query', 'users', (list, listArgs) => {
          const holds = listHolds(usersKey(listArgs), user);
          // A list that may hold it without its edge loaded: count unknown, read afresh.
          if (holds === undefined && !list.edges.some(isDeleted)) return REFETCH;
          return withoutItem(list, isDeleted, holds !== false);
        });
        if (typeof user.invitedById === 'string') {
          editPages(cache, userKey(cache, user.invitedById), 'invitees', (list) =>
            withoutItem(list, isDeleted, true),
          );
        }
        invalidateFields(cache, 'Query', 'userByEmail');
        cache.invalidate({ __typename: 'User', id });
        // Its id may be issued again (strategies that reissue the newest): count that one anew.
        countedIn(cache).delete(id);
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
