/**
 * Apollo Client 4 cache configuration for this API: `new InMemoryCache({ typePolicies })` and no
 * other cache code keeps every view right after every mutation (test/client/caches.test.ts runs
 * each mutation -> view check against the real server).
 *
 * What it does, and why:
 * - Lists (`users`, `sequences`, `User.invitees`) use `relayStylePagination`, keyed by what changes
 *   their content (order, filter, scope), so pages of one list merge and `fetchMore` works both
 *   ways. Its read drops edges whose node is gone, so `cache.evict` + `cache.gc` never makes a page
 *   read as null (an edge's `node` is non-null).
 * - Lookups read the normalized object: `user(id:)`, `node(id:)`, `sequence(name:, scope:)` find
 *   what any query or mutation already wrote (the id scheme of ./ids.ts), and `nextSequence` is the
 *   cached `Sequence.next`, which `allocateSequence`, `setSequence` and `createSequence` update.
 * - Mutations update what they changed, from their payload and arguments (Apollo runs a
 *   `Mutation` field's `merge` when it writes the result): a created user's edge goes into every
 *   cached `users` list whose filter it matches and into its inviter's `invitees`, where the loaded
 *   window holds its place (ids order a list; a place beyond a page not loaded is left to that
 *   page), and `totalCount` grows; a deleted user leaves every list and the cache; a created
 *   sequence joins the cached `sequences` lists; a create of a user marks the `userid` counter
 *   stale. When a payload carries too little to place an item (no user selected), the affected
 *   lists are evicted instead and refetched on their next read.
 */
import type {
  FieldFunctionOptions,
  FieldPolicy,
  Reference,
  StoreObject,
  TypePolicies,
} from '@apollo/client';
import type { ApolloCache } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { placeInWindow, sequenceId, typenameOfId } from './ids';

type Args = Record<string, unknown> | null;
type Edge = StoreObject & { cursor?: string; node?: Reference | null };
interface StoredConnection {
  edges: Edge[];
  pageInfo?: {
    hasNextPage?: boolean;
    hasPreviousPage?: boolean;
    startCursor?: string;
    endCursor?: string;
  };
  totalCount?: number;
  [extra: string]: unknown;
}

/** A list's key: the arguments that change which items it holds, with their defaults. */
const usersKey = (args: Args) =>
  JSON.stringify({
    order: args?.order ?? 'ID_ASC',
    createdWith: (args?.filter as Args)?.createdWith ?? null,
    invitedById: (args?.filter as Args)?.invitedById ?? null,
  });
const inviteesKey = (args: Args) => JSON.stringify({ order: args?.order ?? 'ID_ASC' });
const sequencesKey = (args: Args) => JSON.stringify({ scope: args?.scope ?? null });

/** The key arguments back from a store field name (`users:{"order":"ID_ASC",...}`). */
const keyOf = (storeFieldName: string, fieldName: string): Record<string, unknown> =>
  JSON.parse(storeFieldName.slice(fieldName.length + 1)) as Record<string, unknown>;

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

/**
 * Puts `edge` into a stored connection at its place, when the loaded window holds that place;
 * answers the connection unchanged when it does not (or already holds it).
 */
function withEdge(
  stored: unknown,
  edge: Edge,
  id: string,
  idOf: (edge: Edge) => string,
  ascending: boolean,
): unknown {
  const connection = stored as StoredConnection;
  const ids = connection.edges.map(idOf);
  // All of the list is loaded when its count says so, whatever pageInfo says (a query that selects
  // no pageInfo leaves relayStylePagination's default, "more follow").
  const whole = connection.totalCount === connection.edges.length;
  const place = placeInWindow(ids, id, {
    ascending,
    hasPreviousPage: !whole && (connection.pageInfo?.hasPreviousPage ?? false),
    hasNextPage: !whole && (connection.pageInfo?.hasNextPage ?? false),
  });
  const counted =
    place === -1 || typeof connection.totalCount !== 'number'
      ? {}
      : { totalCount: connection.totalCount + 1 };
  if (place === null || place === -1) return { ...connection, ...counted };
  const edges = [...connection.edges.slice(0, place), edge, ...connection.edges.slice(place)];
  return {
    ...connection,
    ...counted,
    edges,
    pageInfo: {
      ...connection.pageInfo,
      ...(whole ? { hasPreviousPage: false, hasNextPage: false } : {}),
      startCursor: edges[0].cursor,
      endCursor: edges[edges.length - 1].cursor,
    },
  };
}

/** Removes the edges whose node is `ref` (a `__ref` id), and counts them out of `totalCount`. */
function withoutNode(stored: unknown, ref: string): unknown {
  const connection = stored as StoredConnection;
  const edges = connection.edges.filter((edge) => edge.node?.__ref !== ref);
  if (edges.length === connection.edges.length) return connection;
  const removed = connection.edges.length - edges.length;
  return {
    ...connection,
    edges,
    ...(typeof connection.totalCount === 'number'
      ? { totalCount: connection.totalCount - removed }
      : {}),
  };
}

/** A created user, from a create payload (or one `createUsers` result) and its input. */
function afterUserCreated(
  cache: ApolloCache,
  created: StoreObject | undefined,
  input: Args,
  strategy: unknown,
  options: FieldFunctionOptions,
): void {
  if (created === undefined || created === null) return;
  const edgeOf = options.readField<Edge>('userEdge', created);
  const node = (edgeOf?.node ?? options.readField<Reference>('user', created)) as
    Reference | undefined;
  const id = node === undefined ? undefined : options.readField<string>('id', node);
  if (options.readField('error', created)) return;
  if (node === undefined || id === undefined) {
    // Too little selected to place it: the lists are read afresh next time.
    cache.evict({ id: 'ROOT_QUERY', fieldName: 'users' });
    return;
  }
  const edge: Edge = { __typename: 'UserEdge', cursor: id, node };
  const inviterId = (input?.invitedById as string | null | undefined) ?? null;
  const createdWith = options.readField<string>('createdWith', node) ?? strategy ?? 'COUNTER';
  const idOf = (e: Edge) => String(options.readField('id', e.node as Reference));
  cache.modify<Record<string, unknown>>({
    id: 'ROOT_QUERY',
    fields: {
      users(value, { storeFieldName }) {
        const key = keyOf(storeFieldName, 'users');
        const matches =
          (key.createdWith === null || key.createdWith === createdWith) &&
          (key.invitedById === null || key.invitedById === inviterId);
        return matches ? withEdge(value, edge, id, idOf, key.order !== 'ID_DESC') : value;
      },
      // The userid counter moved (by one or by a block): read afresh.
      nextSequence: (value, { storeFieldName, DELETE }) =>
        /"name":"userid"/.test(storeFieldName) ? DELETE : value,
    },
  });
  cache.evict({ id: 'Sequence:userid', fieldName: 'next' });
  cache.evict({ id: 'Sequence:userid', fieldName: 'value' });
  if (inviterId !== null) {
    cache.modify<Record<string, unknown>>({
      id: userRef(cache, inviterId),
      fields: {
        invitees: (value, { storeFieldName }) =>
          withEdge(value, edge, id, idOf, keyOf(storeFieldName, 'invitees').order !== 'ID_DESC'),
      },
    });
  }
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
      users: relayStylePagination(usersKey),
      sequences: relayStylePagination(sequencesKey),
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
      invitees: relayStylePagination(inviteesKey),
    },
  },
  Mutation: {
    fields: {
      createUser: onWrite((cache, payload, options) =>
        afterUserCreated(
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
          afterUserCreated(cache, result, inputs[index] ?? null, options.args?.strategy, options);
        });
      }),
      deleteUser: onWrite((cache, payload, options) => {
        const id = options.readField<string>('deletedUserId', payload);
        if (id === null || id === undefined) return;
        const ref = userRef(cache, id);
        if (ref === undefined) return;
        const drop = (value: unknown) => withoutNode(value, ref);
        cache.modify<Record<string, unknown>>({ id: 'ROOT_QUERY', fields: { users: drop } });
        // Whichever cached user listed it as an invitee (its inviter, if that is cached).
        const inviterId =
          options.readField<string>('invitedById', { __ref: ref }) ??
          options.readField<string>('id', options.readField<Reference>('inviter', payload));
        if (inviterId !== undefined && inviterId !== null) {
          cache.modify<Record<string, unknown>>({
            id: userRef(cache, inviterId),
            fields: { invitees: drop },
          });
        }
        cache.evict({ id: ref });
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
              const { scope } = keyOf(storeFieldName, 'sequences');
              if (scope !== null && scope !== (input?.scope ?? null)) return value;
              return withEdge(value, edge, id, (e) => String(e.cursor), true);
            },
          },
        });
      }),
    },
  },
};
