/**
 * Moving counters into their owner's namespace (./keys.ts): version 0.3 kept every client's
 * sequences in one shared namespace (`_id` `invoice/acme` with `owner: "billing"`); 0.4 keeps a
 * client's at `billing~invoice/acme`. The service runs this once at start, before it serves, so a
 * client's 0.3 sequences keep their values under their names (a counter left at its old `_id`
 * would be unreachable, and creating the name again would issue its values a second time).
 *
 * Each counter moves in two writes, a copy at the new `_id` and the removal of the old one, both
 * idempotent, so a start stopped between them finishes the move at the next start. Not atomic: a
 * 0.3 instance still allocating from the old document while it moves would lose those values, so
 * every 0.3 instance is stopped first (CHANGELOG.md's migration note). A counter whose new `_id`
 * already holds a different document is left where it is and reported; nothing is overwritten.
 * Bounded: one `find` over the counters that have an owner and an `_id` without `~`, read in
 * batches, and two writes per counter found.
 */
import { isDuplicateKeyError, type BoundedCollection } from '../database/index';
import type { CounterDocument } from './counter-document';
import { OWNER_MARK, resolveKey, type ResolvedKey } from './keys';

export interface NamespaceMove {
  /** Counters moved into their owner's namespace. */
  moved: string[];
  /** Counters left at their old `_id`: their new one holds a different document. */
  conflicts: string[];
}

/** The key an owned counter stored at its shared-namespace `_id` moves to; null for any other. */
function movedKey(doc: CounterDocument): ResolvedKey | null {
  try {
    const shared = resolveKey({ name: doc.name as string, scope: doc.scope ?? null });
    if (shared.id !== doc._id) return null;
    return resolveKey({ name: shared.name, scope: shared.scope, owner: doc.owner ?? null });
  } catch {
    return null; // written by hand: no key names it, so nothing addresses it by a name either
  }
}

/** The same counter: every field but `_id` equal. */
function sameCounter(a: CounterDocument, b: CounterDocument): boolean {
  const { _id: _idA, ...restA } = a;
  const { _id: _idB, ...restB } = b;
  return JSON.stringify(restA) === JSON.stringify(restB);
}

export async function moveOwnedCounters(
  counters: BoundedCollection<CounterDocument>,
): Promise<NamespaceMove> {
  const result: NamespaceMove = { moved: [], conflicts: [] };
  const found = counters.collection.find(
    { owner: { $type: 'string' }, _id: { $not: new RegExp(OWNER_MARK) } },
    counters.options(),
  );
  for await (const doc of found) {
    const key = movedKey(doc);
    if (key === null) continue;
    try {
      await counters.collection.insertOne({ ...doc, _id: key.id }, counters.options());
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const there = await counters.collection.findOne({ _id: key.id }, counters.options());
      if (there === null || !sameCounter(there, doc)) {
        result.conflicts.push(doc._id);
        continue;
      }
    }
    await counters.collection.deleteOne({ _id: doc._id, owner: doc.owner }, counters.options());
    result.moved.push(`${doc._id} → ${key.id}`);
  }
  return result;
}
