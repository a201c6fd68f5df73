/**
 * Replaying a change (./changes.ts) onto a store: replaying a store's changes in order onto an
 * empty store rebuilds it, index ownership and collection options included (the journal's
 * recovery, state/journal.ts).
 */
import type { Change } from './changes';
import type { Store } from './store';

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
  }
}
