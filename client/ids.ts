/**
 * The API's id scheme as a client cache needs it (schema.graphql, `Node`): a user's id is the
 * decimal string of its `_id`, a sequence's is its name and `/scope`, starting with a letter. So
 * the first character of an id says its type, and a sequence's id follows from `name` and `scope`
 * alone: caches turn `node(id:)`, `user(id:)`, `sequence(name:, scope:)` and
 * `nextSequence(name:, scope:)` into the normalized object without asking the server.
 */

/** The `__typename` an id belongs to, or null for an id the API never issues. */
export function typenameOfId(id: string): 'User' | 'Sequence' | null {
  if (/^[0-9]+$/.test(id)) return 'User';
  if (/^[A-Za-z]/.test(id)) return 'Sequence';
  return null;
}

/** The `id` of the sequence `name` (and `scope`): `invoice` or `invoice/acme`. */
export function sequenceId(name: string, scope?: string | null): string {
  return scope === undefined || scope === null ? name : `${name}/${scope}`;
}

/** How two ids of one list compare in its order: users by number, sequences by name then scope. */
export function compareIds(a: string, b: string): number {
  if (typenameOfId(a) === 'User') return Number(a) - Number(b);
  const [nameA, scopeA = ''] = a.split('/');
  const [nameB, scopeB = ''] = b.split('/');
  if (nameA !== nameB) return nameA < nameB ? -1 : 1;
  return scopeA === scopeB ? 0 : scopeA < scopeB ? -1 : 1;
}

/**
 * Where an item with `id` goes in a loaded window of a list (ids in the list's order), or null
 * when it belongs outside the window: before its start while more items precede it, or after its
 * end while more follow. -1 when it is already there.
 */
export function placeInWindow(
  ids: readonly string[],
  id: string,
  order: { ascending: boolean; hasPreviousPage: boolean; hasNextPage: boolean },
): number | null {
  if (ids.includes(id)) return -1;
  const sign = order.ascending ? 1 : -1;
  let position = 0;
  while (position < ids.length && sign * compareIds(ids[position], id) < 0) position += 1;
  if (position === 0 && order.hasPreviousPage) return null;
  if (position === ids.length && order.hasNextPage) return null;
  return position;
}
