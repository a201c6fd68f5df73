/**
 * What a write changed, at the engine's level: the after-image of each document written, the
 * `_id` of each one removed, and collection and index definitions made or dropped. The store
 * reports each change to its listener after it has been applied (a refused write reports
 * nothing), so the journal (state/journal.ts) records exactly what an acknowledged command
 * did, independent of which command did it. `applyChange` replays one onto a store; replaying
 * a store's changes in order onto an empty store rebuilds it, index ownership included. A
 * committed transaction is one `transaction` change holding its changes in order.
 */
import type { IndexSpec } from './indexes';
import type { Store } from './store';
import type { Document } from './values';

export type Change =
  | { op: 'put'; db: string; coll: string; doc: Document }
  | { op: 'remove'; db: string; coll: string; id: unknown }
  | { op: 'createCollection'; db: string; coll: string }
  | { op: 'dropCollection'; db: string; coll: string }
  | { op: 'dropDatabase'; db: string }
  | { op: 'createIndex'; db: string; coll: string; spec: IndexSpec }
  | { op: 'dropIndex'; db: string; coll: string; name: string }
  /** a committed transaction's changes, in order: one journal record, applied whole */
  | { op: 'transaction'; changes: Change[] };

export type ChangeListener = (change: Change) => void;

export function applyChange(store: Store, change: Change): void {
  switch (change.op) {
    case 'put': {
      const { collection } = store.obtain(change.db, change.coll);
      const current = collection.byId(change.doc._id);
      if (current) collection.replace(current, change.doc);
      else collection.insert(change.doc);
      return;
    }
    case 'remove': {
      const doc = store.get(change.db, change.coll)?.byId(change.id);
      if (doc) store.get(change.db, change.coll)!.remove(doc);
      return;
    }
    case 'createCollection':
      store.obtain(change.db, change.coll);
      return;
    case 'dropCollection':
      store.drop(change.db, change.coll);
      return;
    case 'dropDatabase':
      store.dropDatabase(change.db);
      return;
    case 'createIndex':
      store.obtain(change.db, change.coll).collection.addIndex(change.spec);
      return;
    case 'dropIndex':
      store.get(change.db, change.coll)?.dropIndex(change.name);
      return;
    case 'transaction':
      for (const inner of change.changes) applyChange(store, inner);
      return;
  }
}
