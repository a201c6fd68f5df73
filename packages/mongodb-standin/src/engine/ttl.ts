/**
 * What TTL indexes delete, as mongod's TTL monitor finds it: a document of a TTL index (of its
 * filter, for a partial one) expires once the indexed field holds a date, or an array holding
 * one, whose earliest date is `expireAfterSeconds` or more in the past; any other value never
 * expires. Each expired document is removed as a delete removes it, so the journal keeps the
 * removal and change streams report a `delete`, as mongod replicates its TTL deletes. A document
 * an open transaction holds is left for a later pass (mongod's monitor meets a write conflict and
 * retries too); the others go. When passes run: state/ttl-monitor.ts.
 */
import { TransactionLockWait } from './concurrency';
import { expiryOf, type Index } from './indexes';
import { valuesAtPath } from './paths';
import type { Document } from './values';
import type { CollectionView, StoreView } from './views';

/** The earliest date the index's field holds in `doc` (array elements included), in ms, or null. */
function earliestDate(index: Index, doc: Document): number | null {
  let earliest: number | null = null;
  for (const value of valuesAtPath(doc, index.fields[0].split('.'))) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item instanceof Date && (earliest === null || item.getTime() < earliest))
        earliest = item.getTime();
    }
  }
  return earliest;
}

function expiredIn(collection: CollectionView, index: Index, now: number): Document[] {
  const threshold = now - expiryOf(index.spec)! * 1000;
  const expired: Document[] = [];
  for (const doc of collection.all()) {
    if (!index.covers(doc)) continue;
    const date = earliestDate(index, doc);
    if (date !== null && date <= threshold) expired.push(doc);
  }
  return expired;
}

/** Removes every document a TTL index of `store` holds that has expired at `now`; returns how many. */
export function removeExpired(store: StoreView, now: number): number {
  let removed = 0;
  for (const database of store.databaseNames()) {
    for (const collection of store.collections(database)) {
      const before = collection.size;
      for (const index of collection.indexes) {
        if (expiryOf(index.spec) === undefined) continue;
        // a document two TTL indexes both expire is removed by the first (remove skips it after)
        for (const doc of expiredIn(collection, index, now)) {
          try {
            collection.remove(doc);
          } catch (error) {
            // the lock is checked before anything changes: the document simply stays
            if (!(error instanceof TransactionLockWait)) throw error;
          }
        }
      }
      removed += before - collection.size;
    }
  }
  return removed;
}
