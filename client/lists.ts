/**
 * The list arithmetic both shipped caches share (./apollo.ts, ./urql.ts): which cached `users`
 * lists a user belongs to, where a created item goes in a cached page, what a removed one leaves,
 * and the users each cache has counted already. Each cache stores a list its own way and reads an
 * edge's id its own way (`idOf`); what a list is made of is the same in both (`CachedList`).
 *
 * Invariants, for every list a cache holds:
 * - a paged view (`page` given: its `first`/`after`/`last`/`before`) holds at most its size; a
 *   created item whose place is inside it pushes the item at its far end out to the next page; a
 *   deleted one leaves it one item short, its cursors unchanged (`withoutItem`);
 * - an item's place is known only inside the loaded window (ids order every list): one that
 *   belongs before the window's start while more precede it, or after its end while more follow,
 *   is only counted;
 * - `totalCount` changes by exactly one per created or deleted user a list's filter matches,
 *   whether the list held its edge or not.
 */
import { placeInWindow } from './ids';

/** An edge as a cache stores it: a cursor (the item's id) and a node. */
export interface ListEdge {
  cursor?: string;
  [field: string]: unknown;
}

/** A list (a connection) as a cache holds it, as far as its query selected it. */
export interface CachedList<E extends ListEdge = ListEdge> {
  edges: E[];
  pageInfo?: {
    hasNextPage?: boolean;
    hasPreviousPage?: boolean;
    startCursor?: string | null;
    endCursor?: string | null;
    [field: string]: unknown;
  };
  totalCount?: number;
  [field: string]: unknown;
}

/** Which page of a list a paged view holds: its paging arguments. */
export interface PageArgs {
  first: number | null;
  after: string | null;
  last: number | null;
  before: string | null;
}

/** The page a list field's arguments ask for. */
export const pageOf = (args: Record<string, unknown> | null | undefined): PageArgs => ({
  first: (args?.first as number | undefined) ?? null,
  after: (args?.after as string | undefined) ?? null,
  last: (args?.last as number | undefined) ?? null,
  before: (args?.before as string | undefined) ?? null,
});

/** The size of a page asked for without `first` or `last` (the API's `PAGE_SIZE.default`). */
const DEFAULT_PAGE_SIZE = 20;

/** A `users` list's content key: the arguments that change which users it holds, with defaults. */
export const usersKey = (args: Record<string, unknown> | null | undefined) => ({
  order: (args?.order as string | undefined) ?? 'ID_ASC',
  createdWith: ((args?.filter as Record<string, unknown> | null)?.createdWith as string) ?? null,
  invitedById: ((args?.filter as Record<string, unknown> | null)?.invitedById as string) ?? null,
});

/** What a cache knows of a user's place in filters: undefined is not known. */
export interface UserFacts {
  createdWith: string | undefined;
  invitedById: string | null | undefined;
}

/** Whether a `users` list with content key `key` holds `user`: true, false, or undefined (not known). */
export function listHolds(key: Record<string, unknown>, user: UserFacts): boolean | undefined {
  const strategy =
    key.createdWith === null || user.createdWith === undefined
      ? key.createdWith === null || undefined
      : key.createdWith === user.createdWith;
  const inviter =
    key.invitedById === null || user.invitedById === undefined
      ? key.invitedById === null || undefined
      : key.invitedById === user.invitedById;
  if (strategy === false || inviter === false) return false;
  return strategy === true && inviter === true ? true : undefined;
}

/** Whether a cached list holds more items before (`previous`) or after its loaded window. */
function beyondWindow(list: CachedList, page: PageArgs | undefined) {
  // All of the list is loaded when its count says so, whatever pageInfo says (a query that selects
  // no pageInfo leaves relayStylePagination's default, "more follow").
  const whole = list.totalCount === list.edges.length;
  return {
    previous: !whole && (list.pageInfo?.hasPreviousPage ?? page?.after != null),
    next: !whole && (list.pageInfo?.hasNextPage ?? page?.before != null),
  };
}

/** The list counted up or down by `by`, when it carries a count. */
const recounted = (list: CachedList, by: number) =>
  typeof list.totalCount === 'number' ? { totalCount: list.totalCount + by } : {};

/**
 * Puts `edge` (of the item `id`) into a cached list at its place, when the loaded window holds
 * that place, and counts it into `totalCount`; answers the list unchanged when it already holds
 * it. A paged view (`page`) keeps its size: a full page passes the item at its far end on. One
 * page of an infinite list whose pages are stored apart (urql's) gives its `page` for where its
 * window lies but does not keep its size (`keepsSize` false): the next page does not hold the
 * item it would pass on.
 */
export function withEdge<E extends ListEdge>(
  stored: unknown,
  edge: E,
  id: string,
  idOf: (edge: E) => string,
  ascending: boolean,
  page?: PageArgs,
  keepsSize = page !== undefined,
): unknown {
  const list = stored as CachedList<E>;
  if (!Array.isArray(list?.edges)) return stored;
  const beyond = beyondWindow(list, page);
  const place = placeInWindow(list.edges.map(idOf), id, {
    ascending,
    hasPreviousPage: beyond.previous,
    hasNextPage: beyond.next,
  });
  if (place === -1) return list;
  if (place === null) return { ...list, ...recounted(list, 1) };
  let edges = [...list.edges.slice(0, place), edge, ...list.edges.slice(place)];
  const pageInfo = { ...list.pageInfo };
  if (!beyond.previous && !beyond.next && page === undefined) {
    Object.assign(pageInfo, { hasPreviousPage: false, hasNextPage: false });
  }
  const size = page?.first ?? page?.last ?? DEFAULT_PAGE_SIZE;
  if (keepsSize && page !== undefined && edges.length > size) {
    // From the end a page counts back (`last`): its first item moves to the page before.
    const fromEnd = page.first === null && page.last !== null;
    edges = fromEnd ? edges.slice(1) : edges.slice(0, size);
    Object.assign(pageInfo, fromEnd ? { hasPreviousPage: true } : { hasNextPage: true });
  }
  return {
    ...list,
    ...recounted(list, 1),
    edges,
    pageInfo: {
      ...pageInfo,
      startCursor: edges[0].cursor,
      endCursor: edges[edges.length - 1].cursor,
    },
  };
}

/**
 * Removes the edges `isItem` picks and counts them out of `totalCount`; a list that did not hold
 * the item but `counts` it (its filter matches) is counted down all the same. A paged view shrinks
 * and keeps its cursors: the item that would move into it is in no payload, and its cursors (ids)
 * still page on with nothing skipped, so it shows fewer items than its size while `pageInfo` says
 * more follow, until it is read again.
 */
export function withoutItem<E extends ListEdge>(
  stored: unknown,
  isItem: (edge: E) => boolean,
  counts: boolean,
): unknown {
  const list = stored as CachedList<E>;
  if (!Array.isArray(list?.edges)) return stored;
  const edges = list.edges.filter((edge) => !isItem(edge));
  const removed = list.edges.length - edges.length;
  const less = removed > 0 ? removed : counts ? 1 : 0;
  if (less === 0) return list;
  return { ...list, edges, ...recounted(list, -less) };
}

/**
 * The users each cache has counted into its lists (from a payload or an event, whichever came
 * first), so the other does not count them again; a deleted user's id leaves it (a strategy that
 * reissues the newest id may issue it again).
 */
const countedUsers = new WeakMap<object, Set<string>>();

export function countedIn(cache: object): Set<string> {
  let ids = countedUsers.get(cache);
  if (ids === undefined) {
    ids = new Set();
    countedUsers.set(cache, ids);
  }
  return ids;
}
