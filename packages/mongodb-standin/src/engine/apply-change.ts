/**
 * Replaying a change (./changes.ts) onto a store: replaying a store's changes in order onto an
 * empty store rebuilds it, index ownership and collection options included (the journal's
 * recovery, state/journal.ts). A committed transaction is one change holding its changes in
 * order, replayed whole; `eachChange` visits them one by one (the change history keeps them so).
 */
import type { Change, CommittedTransaction, LoggedChange, StoreChange } from './changes';
import type { Store } from './store';

export function applyChange(store: Store, change: Change | CommittedTransaction): void {
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
    case 'collectionOptions':
      store
        .obtain(change.db, change.coll)
        .collection.setPreAndPostImages(change.changeStreamPreAndPostImages);
      return;
    case 'renameCollection':
      store.rename(change.db, change.coll, change.to, change.dropTarget === true);
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

/** Visits a change, or each change of a committed transaction, in order. */
export function eachChange(change: StoreChange, visit: (change: LoggedChange) => void): void {
  if (change.op === 'transaction') change.changes.forEach(visit);
  else visit(change);
}
