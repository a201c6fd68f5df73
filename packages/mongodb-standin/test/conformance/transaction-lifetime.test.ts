/**
 * `transactionLifetimeLimitSeconds`, as on mongod: getParameter reads it, setParameter (on admin,
 * an integer of at least 1) sets it for transactions started afterwards, and a transaction open
 * longer is aborted, its locks freed: a write waiting for its document runs, and its commit is
 * NoSuchTransaction. The setting is the whole server's, so this file has a server of its own
 * (fixture.ts); it puts the value back when done. Runs unchanged against real MongoDB (whose
 * reaper runs every half lifetime: the waits below allow for it).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { useConformanceServerOfItsOwn } from './fixture';

const shared = useConformanceServerOfItsOwn('conformance_transaction_lifetime');

function lifetime(): Promise<number> {
  return shared.client
    .db('admin')
    .command({ getParameter: 1, transactionLifetimeLimitSeconds: 1 })
    .then((reply) => reply.transactionLifetimeLimitSeconds as number);
}

function setLifetime(seconds: unknown) {
  return shared.client
    .db('admin')
    .command({ setParameter: 1, transactionLifetimeLimitSeconds: seconds });
}

test('setParameter answers the value it replaced; values below 1 and other databases are refused', async () => {
  const before = await lifetime();
  expect(before).toBeGreaterThanOrEqual(1);
  try {
    await expect(setLifetime(30)).resolves.toMatchObject({ was: before, ok: 1 });
    await expect(lifetime()).resolves.toBe(30);
    await expect(setLifetime(0)).rejects.toMatchObject({ code: 2 });
    await expect(
      shared.db.command({ setParameter: 1, transactionLifetimeLimitSeconds: 5 }),
    ).rejects.toMatchObject({ code: 13 });
    await expect(lifetime()).resolves.toBe(30);
  } finally {
    await setLifetime(before);
  }
});

test('a transaction open past the lifetime is aborted and its locks are freed', async () => {
  const before = await lifetime();
  const collection = shared.db.collection<{ _id: number; n: number }>('expiring');
  await collection.insertOne({ _id: 1, n: 0 });
  const session = shared.client.startSession();
  try {
    await setLifetime(1);
    session.startTransaction();
    await collection.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session });
    // a write outside the transaction waits for its document until the transaction is aborted
    await expect(
      collection.updateOne({ _id: 1 }, { $inc: { n: 10 } }, { maxTimeMS: 20_000 }),
    ).resolves.toMatchObject({ modifiedCount: 1 });
    await sleep(100);
    await expect(session.commitTransaction()).rejects.toMatchObject({ code: 251 });
    await expect(collection.findOne({ _id: 1 })).resolves.toEqual({ _id: 1, n: 10 });
  } finally {
    await setLifetime(before);
    await session.endSession();
  }
});
