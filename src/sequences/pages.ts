/**
 * Pages of counters: a cursor connection over (name, scope), Relay's first/after and last/before,
 * narrowed by scope and by owner, with `totalCount`.
 *
 * Invariants: a cursor is a sequence `id` (`name` or `name/scope`, after `owner~` in a client's
 * namespace), so a page resumes exactly after
 * (or before) that counter whatever was created since; a page reads at most `size + 1` listable
 * documents; `totalCount` costs a command only when asked for. A client's list holds its own
 * counters and the `shared` ones (`userid`, readable by every client), never another client's.
 * Input reaches filters as values only (names and scopes are validated first).
 */
import type { Filter } from 'mongodb';
import type { BoundedCollection } from '../database/index';
import { PAGE_SIZE } from '../limits';
import { type CounterDocument, type SequenceState, toState } from './counter-document';
import { BadUserInputError, SequenceCorruptError } from './errors';
import { type ResolvedKey, parseSequenceId, resolveKey, validateSequenceName } from './keys';

/**
 * One listed counter: its state, or why its document cannot be read as a sequence (written by
 * someone else with wrong types). An unreadable counter is not left out: it keeps its place in the
 * order, so its owner and the admin see that it exists and what repairs it, the others still read,
 * and its `id` is a cursor like any other (a page never ends on a counter it does not show).
 */
export type ListedSequence =
  { id: string; sequence: SequenceState } | { id: string; error: SequenceCorruptError };

/** One page of counters, ordered by name then scope (the unscoped one first). */
export interface SequencePage {
  entries: ListedSequence[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** Counters the list holds, cursors aside; one `count` command, sent only when called. */
  totalCount(): Promise<number>;
}

/** What `page()` lists: Relay's first/after or last/before, narrowed by scope and owner. */
export interface SequencePageRequest {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  scope?: string | null;
  /** Only this client's counters (and `shared`); undefined: every counter (admin). */
  owner?: string;
  /** Counter ids every owner sees listed besides its own (`userid`). */
  shared?: string[];
}

/**
 * A page of counters ordered by name then scope (the unscoped one first): `first` (1 to 100, 20
 * when neither is given) after the cursor `after`, or `last` before `before` (a sequence `id`),
 * narrowed to one `scope`, and to the counters of one `owner` plus the `shared` ids when an owner
 * is given. One extra document is read to tell whether more follow in the page's direction, and
 * one `find` of a single `_id` tells whether any lie beyond its cursor. A counter whose document
 * cannot be read as a sequence is listed as its SEQUENCE_CORRUPT error (see `ListedSequence`).
 * Counters no operation can name are left out: those without a `name` field (written by hand in
 * the tutorial's shape; they still work by name) and those whose name, scope and `_id` no key can
 * have. Documents are read until the page is full, so leaving some out never shortens a page
 * (the cost: when another page follows, the server's cursor is closed, one `killCursors`).
 * `totalCount` counts the documents with a `name` that the filter admits (one command, only when
 * called), so a hand-written counter with a name but a mismatched `_id` is counted, not listed.
 */
export async function pageOfSequences(
  counters: BoundedCollection<CounterDocument>,
  request: SequencePageRequest,
): Promise<SequencePage> {
  const { first, last } = request;
  const fromEnd = last !== undefined && last !== null;
  if (fromEnd && first !== undefined && first !== null) {
    throw new BadUserInputError('Give first or last, not both.', { field: 'last' });
  }
  const size = fromEnd ? last : (first ?? PAGE_SIZE.default);
  const sizeField = fromEnd ? 'last' : 'first';
  if (!Number.isInteger(size) || size < 1 || size > PAGE_SIZE.max) {
    throw new BadUserInputError(`${sizeField} must be 1 to ${PAGE_SIZE.max}.`, {
      field: sizeField,
    });
  }
  const scope = request.scope ?? null;
  if (scope !== null) validateSequenceName(scope, 'scope');
  const base: Filter<CounterDocument> = { name: { $type: 'string' } };
  if (scope !== null) base.scope = scope;
  if (request.owner !== undefined) {
    base.$or = [{ owner: request.owner }, { _id: { $in: request.shared ?? [] } }];
  }
  const after = cursorKey(request.after, 'after');
  const before = cursorKey(request.before, 'before');
  const window = [after && beyond(after, 1), before && beyond(before, -1)].filter(
    (condition) => condition !== null,
  );
  const filter: Filter<CounterDocument> = window.length === 0 ? base : { $and: [base, ...window] };
  // Reading from the end runs the order backwards; the page is reversed back below.
  const direction = fromEnd ? -1 : 1;
  const far = fromEnd ? before : after;
  const [entries, previous] = await Promise.all([
    listed(counters, filter, direction, size),
    far === null
      ? false
      : counters.collection
          .find({ $and: [base, atOrBeyond(far, -direction as 1 | -1)] }, counters.options())
          .project({ _id: 1 })
          .limit(1)
          .toArray()
          .then((found) => found.length > 0),
  ]);
  if (fromEnd) entries.page.reverse();
  return {
    entries: entries.page,
    hasNextPage: fromEnd ? previous : entries.more,
    hasPreviousPage: fromEnd ? entries.more : previous,
    totalCount: () => counters.collection.countDocuments(base, counters.options()),
  };
}

/** Up to `size` listable counters of `filter` in `direction`, and whether more follow. */
async function listed(
  counters: BoundedCollection<CounterDocument>,
  filter: Filter<CounterDocument>,
  direction: 1 | -1,
  size: number,
): Promise<{ page: ListedSequence[]; more: boolean }> {
  const docs = counters.collection
    .find(filter, counters.options())
    .sort({ name: direction, scope: direction, _id: direction })
    .batchSize(size + 1);
  const page: ListedSequence[] = [];
  try {
    for await (const doc of docs) {
      const key = listedKey(doc);
      if (key === null) continue;
      if (page.length === size) return { page, more: true };
      page.push(listedEntry(key, doc));
    }
  } finally {
    await docs.close();
  }
  return { page, more: false };
}

/** The key of a listed counter; null for one whose name, scope or `_id` no key can have (foreign). */
function listedKey(doc: CounterDocument): ResolvedKey | null {
  try {
    const key = resolveKey({
      name: doc.name as string,
      scope: doc.scope ?? null,
      owner: doc.owner ?? null,
    });
    return key.id === doc._id ? key : null;
  } catch {
    return null;
  }
}

/** A listed counter's state, or its SEQUENCE_CORRUPT error when its document cannot be read. */
function listedEntry(key: ResolvedKey, doc: CounterDocument): ListedSequence {
  try {
    return { id: key.id, sequence: toState(key, doc) };
  } catch (err) {
    if (err instanceof SequenceCorruptError) return { id: key.id, error: err };
    throw err;
  }
}

/** The key a page cursor names, or null when absent; BAD_USER_INPUT naming `field` when malformed. */
function cursorKey(cursor: string | null | undefined, field: string): ResolvedKey | null {
  return cursor === undefined || cursor === null ? null : parseSequenceId(cursor, field);
}

/**
 * Counters strictly beyond `key` in the (name, scope, _id) order: after it for 1, before it for
 * -1. The unscoped counter of a name stores no `scope` and sorts first among that name's counters;
 * `_id` orders the namespaces (owners) that use one name and scope.
 */
function beyond(key: ResolvedKey, direction: 1 | -1): Filter<CounterDocument> {
  const name = direction === 1 ? { $gt: key.name } : { $lt: key.name };
  const sameKey = {
    name: key.name,
    scope: key.scope === null ? { $exists: false } : key.scope,
    _id: direction === 1 ? { $gt: key.id } : { $lt: key.id },
  };
  if (direction === 1) {
    return {
      $or: [
        { name },
        { name: key.name, scope: key.scope === null ? { $exists: true } : { $gt: key.scope } },
        sameKey,
      ],
    };
  }
  return key.scope === null
    ? { $or: [{ name }, sameKey] }
    : {
        $or: [
          { name },
          { name: key.name, scope: { $exists: false } },
          { name: key.name, scope: { $lt: key.scope } },
          sameKey,
        ],
      };
}

/** Counters at `key` or beyond it in `direction`: what lies on a cursor's far side. */
function atOrBeyond(key: ResolvedKey, direction: 1 | -1): Filter<CounterDocument> {
  return { $or: [{ _id: key.id }, beyond(key, direction)] };
}
