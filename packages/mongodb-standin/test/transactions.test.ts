/**
 * The engine side of multi-document transactions (engine/transaction.ts, concurrency.ts):
 * snapshot reads, private writes, first-writer-wins conflicts, unique keys, waits of writes
 * outside transactions, one change per commit. Called directly, no sockets.
 */
import { Long } from 'bson';
import { StoreChange } from '../src/engine/changes';
import { TransactionLockWait } from '../src/engine/concurrency';
import { CommandError } from '../src/engine/errors';
import { runQuery } from '../src/engine/query';
import { Store } from '../src/engine/store';
import { Transaction } from '../src/engine/transaction';

let nextId = 1;
function begin(store: Store): Transaction {
  const id = nextId++;
  return new Transaction(store, id, { lsid: { id }, txnNumber: Long.fromNumber(1) });
}

function seeded(): { store: Store; changes: StoreChange[] } {
  const store = new Store();
  const { collection } = store.obtain('db', 'c');
  collection.addIndex({ name: 'email_1', key: { email: 1 }, unique: true });
  collection.insert({ _id: 1, email: 'a', n: 1 });
  collection.insert({ _id: 2, email: 'b', n: 2 });
  const changes: StoreChange[] = [];
  store.observe((change) => changes.push(change));
  return { store, changes };
}

function codeOf(run: () => unknown): { code: number; labels: unknown } {
  try {
    run();
  } catch (error) {
    if (error instanceof CommandError) return { code: error.code, labels: error.extra.errorLabels };
    throw error;
  }
  throw new Error('expected a CommandError');
}

test('a transaction reads its snapshot plus its own writes; others see nothing until commit', () => {
  const { store, changes } = seeded();
  const live = store.get('db', 'c')!;
  const txn = begin(store);
  const view = txn.get('db', 'c')!;
  live.insert({ _id: 3, email: 'c' });
  live.replace(live.byId(1)!, { _id: 1, email: 'a', n: 10 });
  live.remove(live.byId(2)!);
  expect(view.byId(3)).toBeUndefined();
  expect(view.byId(1)).toEqual({ _id: 1, email: 'a', n: 1 });
  expect([...view.all()].map((d) => d._id)).toEqual([1, 2]);
  expect(runQuery(view, { n: { $gte: 1 } }, { sort: { _id: -1 } }).map((d) => d._id)).toEqual([
    2, 1,
  ]);

  view.insert({ _id: 4, email: 'd' });
  expect(view.byId(4)).toEqual({ _id: 4, email: 'd' });
  expect(live.byId(4)).toBeUndefined();
  const before = changes.length;
  txn.commit();
  expect(live.byId(4)).toEqual({ _id: 4, email: 'd' });
  const committed = changes.slice(before);
  expect(committed).toMatchObject([
    {
      op: 'transaction',
      changes: [{ op: 'put', event: 'insert', db: 'db', coll: 'c', doc: { _id: 4, email: 'd' } }],
    },
  ]);
  expect(committed[0].op === 'transaction' && committed[0].changes).toHaveLength(1);
});

test('an aborted transaction leaves nothing, and its locks go with it', () => {
  const { store, changes } = seeded();
  const txn = begin(store);
  const view = txn.get('db', 'c')!;
  view.replace(view.byId(1)!, { _id: 1, email: 'z' });
  view.insert({ _id: 9 });
  txn.abort();
  const live = store.get('db', 'c')!;
  expect(live.byId(1)).toEqual({ _id: 1, email: 'a', n: 1 });
  expect(live.byId(9)).toBeUndefined();
  expect(changes).toEqual([]);
  live.replace(live.byId(1)!, { _id: 1, email: 'z' });
  expect(live.byId(1)!.email).toBe('z');
  expect(store.concurrency.changedSince('db.c', -1).size).toBe(0);
});

test('two transactions writing one document: the second writer gets WriteConflict, transient', () => {
  const { store } = seeded();
  const first = begin(store);
  const second = begin(store);
  const a = first.get('db', 'c')!;
  const b = second.get('db', 'c')!;
  a.replace(a.byId(1)!, { _id: 1, n: 100 });
  expect(codeOf(() => b.replace(b.byId(1)!, { _id: 1, n: 200 }))).toEqual({
    code: 112,
    labels: ['TransientTransactionError'],
  });
  expect(codeOf(() => b.insert({ _id: 1 }))).toMatchObject({ code: 11000 });
  first.commit();
  expect(store.get('db', 'c')!.byId(1)).toEqual({ _id: 1, n: 100 });
});

test('a document committed after the snapshot is a WriteConflict to write, E11000 never', () => {
  const { store } = seeded();
  const txn = begin(store);
  const view = txn.get('db', 'c')!;
  const live = store.get('db', 'c')!;
  live.replace(live.byId(2)!, { _id: 2, email: 'b', n: 3 });
  live.insert({ _id: 5, email: 'e' });
  expect(codeOf(() => view.replace(view.byId(2)!, { _id: 2, n: 4 })).code).toBe(112);
  expect(codeOf(() => view.insert({ _id: 5 })).code).toBe(112);
  expect(codeOf(() => view.insert({ _id: 6, email: 'e' })).code).toBe(112);
});

test('unique keys: E11000 within the snapshot, WriteConflict against another open transaction', () => {
  const { store } = seeded();
  const first = begin(store);
  const second = begin(store);
  const a = first.get('db', 'c')!;
  const b = second.get('db', 'c')!;
  expect(codeOf(() => a.insert({ _id: 7, email: 'a' })).code).toBe(11000);
  a.insert({ _id: 7, email: 'x' });
  expect(codeOf(() => b.insert({ _id: 8, email: 'x' })).code).toBe(112);
  // freeing a key and taking it again in one transaction applies whatever the order
  a.replace(a.byId(1)!, { _id: 1, email: 'b2' });
  a.replace(a.byId(2)!, { _id: 2, email: 'a' });
  first.commit();
  const live = store.get('db', 'c')!;
  expect([...live.all()]).toEqual([
    { _id: 1, email: 'b2' },
    { _id: 2, email: 'a' },
    { _id: 7, email: 'x' },
  ]);
});

test('a write outside transactions meeting a lock is undone unseen, and runs after the commit', async () => {
  const { store, changes } = seeded();
  const txn = begin(store);
  const view = txn.get('db', 'c')!;
  view.replace(view.byId(2)!, { _id: 2, email: 'b', n: 20 });
  const live = store.get('db', 'c')!;
  store.beginCommand();
  live.insert({ _id: 3, email: 'c' });
  let wait: TransactionLockWait | null = null;
  try {
    live.replace(live.byId(2)!, { _id: 2, email: 'b', n: 30 });
  } catch (error) {
    wait = error as TransactionLockWait;
  }
  expect(wait).toBeInstanceOf(TransactionLockWait);
  store.rollbackCommand();
  expect(live.byId(3)).toBeUndefined();
  expect(changes).toEqual([]);
  expect(() => live.insert({ _id: 4, email: 'q' })).not.toThrow();
  let ended = false;
  void wait!.owner.ended.then(() => (ended = true));
  txn.commit();
  await Promise.resolve();
  expect(ended).toBe(true);
  expect(live.byId(2)!.n).toBe(20);
});

test('a write outside transactions on a unique key a transaction took waits for it', () => {
  const { store } = seeded();
  const txn = begin(store);
  txn.get('db', 'c')!.insert({ _id: 10, email: 'new' });
  const live = store.get('db', 'c')!;
  expect(() => live.insert({ _id: 11, email: 'new' })).toThrow(TransactionLockWait);
  expect(() => store.drop('db', 'c')).toThrow(TransactionLockWait);
  txn.abort();
  expect(live.insert({ _id: 11, email: 'new' })).toEqual({ _id: 11, email: 'new' });
});

test('collections a transaction creates are private until commit, indexes included', () => {
  const { store, changes } = seeded();
  const txn = begin(store);
  const { collection, created } = txn.obtain('db', 'fresh');
  expect(created).toBe(true);
  collection.addIndex({ name: 'k_1', key: { k: 1 }, unique: true });
  collection.insert({ _id: 1, k: 1 });
  expect(store.get('db', 'fresh')).toBeUndefined();
  expect(codeOf(() => txn.get('db', 'c')!.addIndex({ name: 'n_1', key: { n: 1 } })).code).toBe(263);
  txn.commit();
  const fresh = store.get('db', 'fresh')!;
  expect(fresh.indexes.map((index) => index.name)).toEqual(['_id_', 'k_1']);
  expect([...fresh.all()]).toEqual([{ _id: 1, k: 1 }]);
  expect(changes).toHaveLength(1);
  expect(changes[0]).toMatchObject({ op: 'transaction' });
});

test('a collection created after the snapshot is SnapshotUnavailable to read, transient', () => {
  const { store } = seeded();
  const txn = begin(store);
  store.obtain('db', 'later');
  expect(codeOf(() => txn.get('db', 'later'))).toEqual({
    code: 246,
    labels: ['TransientTransactionError'],
  });
});

test('pre-images are kept only while a snapshot may read them', () => {
  const { store } = seeded();
  const live = store.get('db', 'c')!;
  live.replace(live.byId(1)!, { _id: 1, email: 'a', n: 5 });
  expect(store.concurrency.changedSince('db.c', -1).size).toBe(0);
  const old = begin(store);
  live.replace(live.byId(1)!, { _id: 1, email: 'a', n: 6 });
  const newer = begin(store);
  live.replace(live.byId(2)!, { _id: 2, email: 'b', n: 7 });
  expect(store.concurrency.changedSince('db.c', -1).size).toBe(2);
  old.abort();
  expect([...store.concurrency.changedSince('db.c', -1).keys()]).toHaveLength(1);
  expect(newer.get('db', 'c')!.byId(2)).toEqual({ _id: 2, email: 'b', n: 2 });
  newer.abort();
  expect(store.concurrency.changedSince('db.c', -1).size).toBe(0);
});
