/**
 * Apollo Client 4 cache configuration for this API: `new InMemoryCache({ typePolicies })` and no
 * other cache code keeps every view right after every mutation and every `userCreated` event
 * (test/client/caches.test.ts and test/client/lists.test.ts run them against the real server).
 *
 * What it does, and why:
 * - Lists (`users`, `sequences`, `User.invitees`) come in two shapes, chosen per query. By default
 *   a list is a paged view: each page (its `first`/`after`/`last`/`before`) is kept as the server
 *   answered it, so page 2 shows page 2 and `first: 5` after `first: 2` asks for 5. A query that
 *   marks the field `@connection(key: "infinite")` gets an infinite list instead: its pages merge
 *   (`relayStylePagination`), so `fetchMore` grows it both ways. Both are keyed by what changes
 *   their content (order, filter, scope); reading drops edges whose node is gone, so `cache.evict`
 *   + `cache.gc` never makes a page read as null (an edge's `node` is non-null).
 * - Lookups read the normalized object: `user(id:)`, `node(id:)`, `sequence(name:, scope:)` find
 *   what any query or mutation already wrote (the id scheme of ./ids.ts), and `nextSequence` is the
 *   cached `Sequence.next`, which `allocateSequence`, `setSequence` and `createSequence` update.
 * - Mutations and `userCreated` events update what they changed, from their payload, event and
 *   arguments (Apollo runs a `Mutation` or `Subscription` field's `merge` when it writes the
 *   result): a created user's edge goes into every cached `users` list whose filter it matches and
 *   into its inviter's `invitees`, where the loaded window holds its place (ids order a list; a
 *   place beyond the pages loaded is left to them; a full page passes its last item on), and every
 *   such list's `totalCount` grows by one, once, whether the payload or the event comes first; a
 *   deleted user leaves every list and the cache, and every list whose filter it matched counts it
 *   out, held or not (a page that held it shrinks by one and keeps its cursors: its next item is
 *   in no payload, ./lists.ts); a created sequence joins the cached `sequences` lists; a create of
 *   a user marks the `userid` counter stale. When a payload or event carries too little to place
 *   or count an item (no user, no `createdWith` or `invitedById` for a filtered list), the
 *   affected lists are evicted and refetched when next read. The list rules are ./lists.ts's,
 *   shared with ./urql.ts.
 */
import type {
  FieldFunctionOptions,
  FieldPolicy,
  Reference,
  StoreObject,
  TypePolicies,
} from '@apollo/client';
import type { FieldNode } from 'graphql';
import type { ApolloCache } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
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

/**
 * The schema's interfaces and their types (generated from schema.graphql): hand them to the cache
 * with the policies, `new InMemoryCache({ typePolicies, possibleTypes })`, so fragments on `Node`
 * match by the schema.
 */
export const possibleTypes = possibleTypesResult.possibleTypes;

type Args = Record<string, unknown> | null;
type Edge = StoreObject & ListEdge & { node?: Reference | null };

/** A list's content key: the arguments that change which items it holds, with their defaults. */
const inviteesKey = (args: Args) => ({ order: args?.order ?? 'ID_ASC' });
const sequencesKey = (args: Args) => ({ scope: args?.scope ?? null });

/** The `@connection(key:)` that makes a query's list infinite (pages merged). */
export const INFINITE_LIST = 'infinite';

/** Whether a query marked this field `@connection(key: "infinite")`. */
function markedInfinite(field: FieldNode | null | undefined): boolean {
  return (
    field?.directives?.some(
      (directive) =>
        directive.name.value === 'connection' &&
        directive.arguments?.some(
          (argument) =>
            argument.name.value === 'key' &&
            argument.value.kind === 'StringValue' &&
            argument.value.value === INFINITE_LIST,
        ),
    ) ?? false
  );
}

/**
 * A list field's policy: a paged view unless the query marks it infinite (the header). A paged
 * view's key adds its page (`page`), an infinite list's key is its content key alone.
 */
function listPolicy(contentKey: (args: Args) => Record<string, unknown>): FieldPolicy {
  // Its keyArgs are this policy's: only its read and merge are used.
  const infinite = relayStylePagination();
  return {
    keyArgs: (args, { field }) =>
      JSON.stringify(
        markedInfinite(field) ? contentKey(args) : { ...contentKey(args), page: pageOf(args) },
      ),
    read(existing: CachedList<Edge> | undefined, options) {
      if (markedInfinite(options.field)) return infinite.read?.(existing as never, options);
      if (existing === undefined) return undefined;
      const edges = existing.edges.filter(
        (edge) => edge.node === null || edge.node === undefined || options.canRead(edge.node),
      );
      return edges.length === existing.edges.length ? existing : { ...existing, edges };
    },
    merge(existing, incoming, options) {
      if (markedInfinite(options.field)) {
        return typeof infinite.merge === 'function'
          ? infinite.merge(existing as never, incoming as never, options)
          : incoming;
      }
      return incoming;
    },
  };
}

/** The content key arguments back from a store field name (`users:{"order":"ID_ASC",...}`), and its page. */
const keyOf = (
  storeFieldName: string,
  fieldName: string,
): Record<string, unknown> & { page?: PageArgs } =>
  JSON.parse(storeFieldName.slice(fieldName.length + 1)) as Record<string, unknown> & {
    page?: PageArgs;
  };

/** The object of `typename` and `id` as the cache holds it, if it does. */
function redirect(typename: string | null, id: string | null, options: FieldFunctionOptions) {
  if (typename === null || id === null) return undefined;
  const ref = options.toReference({ __typename: typename, id });
  return ref !== undefined && options.canRead(ref) ? ref : undefined;
}

/** A lookup field that reads the normalized object when no answer of its own is cached. */
function lookup(target: (args: Args) => [string | null, string | null]): FieldPolicy {
  return {
    read(existing: Reference | null | undefined, options) {
      // An answer of its own: null stays null (none there); a removed object is asked for again.
      if (existing !== undefined) {
        return existing === null || options.canRead(existing) ? existing : undefined;
      }
      return redirect(...target(options.args), options);
    },
  };
}

const sequenceOf = (args: Args): [string, string] => [
  'Sequence',
  sequenceId(String(args?.name), args?.scope as string | null | undefined),
];

/** The cache's id of a user. */
const userRef = (cache: ApolloCache, id: string) => cache.identify({ __typename: 'User', id });

/** What is known of a created user: its node, and its strategy and inviter when they are known. */
interface CreatedUser extends UserFacts {
  node: Reference;
  id: string;
}

/**
 * How one cached user list changes: `holds` says whether its filter takes the user (undefined:
 * not known), `page` and `ascending` where items go; answers the new value or `DELETE`.
 */
type ListEdit = (
  list: unknown,
  place: { holds: boolean | undefined; page: PageArgs | undefined; ascending: boolean },
  DELETE: unknown,
) => unknown;

/**
 * Applies `edit` to every cached `users` list and to the `invitees` lists of the user's inviter
 * (when its id is known and the inviter is cached): the lists a created or deleted user is in.
 */
function editUserLists(cache: ApolloCache, user: UserFacts, edit: ListEdit): void {
  const placeIn = (key: Record<string, unknown> & { page?: PageArgs }, holds?: boolean) => ({
    holds,
    page: key.page,
    ascending: key.order !== 'ID_DESC',
  });
  cache.modify<Record<string, unknown>>({
    id: 'ROOT_QUERY',
    fields: {
      users(value, { storeFieldName, DELETE }) {
        const key = keyOf(storeFieldName, 'users');
        return edit(value, placeIn(key, listHolds(key, user)), DELETE);
      },
    },
  });
  if (typeof user.invitedById === 'string') {
    cache.modify<Record<string, unknown>>({
      id: userRef(cache, user.invitedById),
      fields: {
        invitees: (value, { storeFieldName, DELETE }) =>
          edit(value, placeIn(keyOf(storeFieldName, 'invitees'), true), DELETE),
      },
    });
  }
}

/** A created user joins the cached lists it belongs to, counted once per cache. */
function afterUserCreated(
  cache: ApolloCache,
  user: CreatedUser,
  options: FieldFunctionOptions,
): void {
  const seen = countedIn(cache);
  if (seen.has(user.id)) return;
  seen.add(user.id);
  const edge: Edge = { __typename: 'UserEdge', cursor: user.id, node: user.node };
  const idOf = (e: Edge) => String(options.readField('id', e.node as Reference));
  editUserLists(cache, user, (list, { holds, page, ascending }, DELETE) => {
    if (holds === undefined) return DELETE; // too little known: read afresh
    return holds ? withEdge(list, edge, user.id, idOf, ascending, page) : list;
  });
  // The userid counter moved (by one or by a block): read afresh.
  cache.modify<Record<string, unknown>>({
    id: 'ROOT_QUERY',
    fields: {
      nextSequence: (value, { storeFieldName, DELETE }) =>
        /"name":"userid"/.test(storeFieldName) ? DELETE : value,
    },
  });
  cache.evict({ id: 'Sequence:userid', fieldName: 'next' });
  cache.evict({ id: 'Sequence:userid', fieldName: 'value' });
}

/** A created user from a create payload (or one `createUsers` result) and its input. */
function createdFromPayload(
  cache: ApolloCache,
  created: StoreObject | undefined,
  input: Args,
  strategy: unknown,
  options: FieldFunctionOptions,
): void {
  if (created === undefined || created === null) return;
  if (options.readField('error', created)) return;
  const edgeOf = options.readField<Edge>('userEdge', created);
  const node = (edgeOf?.node ?? options.readField<Reference>('user', created)) as
    Reference | undefined;
  const id = node === undefined ? undefined : options.readField<string>('id', node);
  if (node === undefined || id === undefined) {
    // Too little selected to place it: the lists are read afresh next time.
    cache.evict({ id: 'ROOT_QUERY', fieldName: 'users' });
    return;
  }
  afterUserCreated(
    cache,
    {
      node,
      id,
      createdWith:
        options.readField<string>('createdWith', node) ?? ((strategy as string) || 'COUNTER'),
      invitedById: (input?.invitedById as string | null | undefined) ?? null,
    },
    options,
  );
}

/** A created user from a `userCreated` event: what the event selected of it. */
function createdFromEvent(
  cache: ApolloCache,
  event: StoreObject,
  options: FieldFunctionOptions,
): void {
  const node = options.readField<Reference>('user', event);
  const id = node === undefined ? undefined : options.readField<string>('id', node);
  if (node === undefined || id === undefined) return;
  afterUserCreated(
    cache,
    {
      node,
      id,
      createdWith: options.readField<string>('createdWith', node),
      invitedById: options.readField<string | null>('invitedById', node),
    },
    options,
  );
}

/** A `Mutation` field policy that runs `effect` each time the field's result is written. */
function onWrite(
  effect: (cache: ApolloCache, payload: StoreObject, options: FieldFunctionOptions) => void,
): FieldPolicy {
  return {
    merge(_existing, incoming: StoreObject, options) {
      if (incoming !== null && incoming !== undefined) {
        effect(options.cache as ApolloCache, incoming, options);
      }
      return incoming;
    },
  };
}

export const typePolicies: TypePolicies = {
  Query: {
    fields: {
      users: listPolicy(usersKey),
      sequences: listPolicy(sequencesKey),
      user: lookup((args) => ['User', (args?.id as string) ?? null]),
      node: lookup((args) => [
        typenameOfId(String(args?.id)),
        args?.id === undefined ? null : String(args.id),
      ]),
      sequence: lookup(sequenceOf),
      nextSequence: {
        // The cached Sequence's `next` when there is one: allocations and sets update it.
        read(existing: number | undefined, options) {
          const ref = options.toReference({
            __typename: 'Sequence',
            id: sequenceOf(options.args)[1],
          });
          const next = ref === undefined ? undefined : options.readField<number>('next', ref);
          return next ?? existing;
        },
        // A fresh answer is also the cached Sequence's `next`, so the two never disagree.
        merge(_existing, incoming: number, options) {
          const id = options.cache.identify({
            __typename: 'Sequence',
            id: sequenceOf(options.args)[1],
          });
          options.cache.modify<Record<string, unknown>>({ id, fields: { next: () => incoming } });
          return incoming;
        },
      },
    },
  },
  User: {
    fields: {
      invitees: listPolicy(inviteesKey),
    },
  },
  Mutation: {
    fields: {
      createUser: onWrite((cache, payload, options) =>
        createdFromPayload(
          cache,
          payload,
          options.args?.input as Args,
          options.args?.strategy,
          options,
        ),
      ),
      createUsers: onWrite((cache, payload, options) => {
        const results = options.readField<StoreObject[]>('results', payload) ?? [];
        const inputs = (options.args?.inputs as Args[]) ?? [];
        results.forEach((result, position) => {
          const index = options.readField<number>('index', result) ?? position;
          createdFromPayload(cache, result, inputs[index] ?? null, options.args?.strategy, options);
        });
      }),
      deleteUser: onWrite((cache, payload, options) => {
        const id = options.readField<string>('deletedUserId', payload);
        if (id === null || id === undefined) return;
        const ref = userRef(cache, id);
        if (ref === undefined) return;
        // What the cache or the payload knows of the deleted user, to tell which lists held it.
        const known = { __ref: ref };
        const deleted = options.readField<Reference>('user', payload);
        const fieldOf = <T>(field: string) =>
          options.readField<T>(field, known) ??
          (deleted === undefined ? undefined : options.readField<T>(field, deleted));
        // Its inviter's id: as the cache or the payload knows it, else the payload's `inviter`.
        const inviter = options.readField<Reference | null>('inviter', payload);
        const invitedById = fieldOf<string | null>('invitedById');
        const user: UserFacts = {
          createdWith: fieldOf<string>('createdWith'),
          invitedById:
            invitedById !== undefined || !inviter
              ? invitedById
              : options.readField<string>('id', inviter),
        };
        const isDeleted = (edge: Edge) => edge.node?.__ref === ref;
        editUserLists(cache, user, (list, { holds }, DELETE) => {
          // A list that may hold it without its edge loaded: count unknown, read afresh.
          const held = (list as CachedList<Edge>)?.edges?.some(isDeleted);
          if (holds === undefined && !held) return DELETE;
          return withoutItem(list, isDeleted, holds !== false);
        });
        cache.evict({ id: ref });
        // Its id may be issued again (strategies that reissue the newest): count that one anew.
        countedIn(cache).delete(id);
      }),
      createSequence: onWrite((cache, payload, options) => {
        if (options.readField('error', payload)) return;
        const edgeOf = options.readField<Edge>('sequenceEdge', payload);
        const node = (edgeOf?.node ?? options.readField<Reference>('sequence', payload)) as
          Reference | undefined;
        const input = options.args?.input as Args;
        const id = sequenceId(String(input?.name), input?.scope as string | null | undefined);
        if (node === undefined) {
          cache.evict({ id: 'ROOT_QUERY', fieldName: 'sequences' });
          return;
        }
        const edge: Edge = { __typename: 'SequenceEdge', cursor: id, node, error: null };
        cache.modify<Record<string, unknown>>({
          id: 'ROOT_QUERY',
          fields: {
            sequences(value, { storeFieldName }) {
              const { scope, page } = keyOf(storeFieldName, 'sequences');
              if (scope !== null && scope !== (input?.scope ?? null)) return value;
              return withEdge(value, edge, id, (e) => String(e.cursor), true, page);
            },
          },
        });
      }),
    },
  },
  // A `userCreated` event is written like a query's answer: its user joins the lists it belongs to.
  Subscription: {
    fields: {
      userCreated: onWrite(createdFromEvent),
    },
  },
};
