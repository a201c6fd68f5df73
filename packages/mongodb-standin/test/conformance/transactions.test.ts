/**
 * Multi-document transactions as a replica set runs them, here and on real MongoDB, through
 * driver 7.9: session.withTransaction commits every write together; two transactions writing
 * one document conflict (the second writer gets WriteConflict with TransientTransactionError,
 * and only the first commit counts); an aborted transaction leaves nothing; another client sees
 * none of a transaction's writes until its commit, and a transaction keeps reading its snapshot;
 * `killSessions` aborts a session's open transaction at once.
 * Concurrency is real: many clients at once, each with its own session, through the driver.
 */
import { Long, MongoServerError } from 'mongodb';
import { connectTestClient } from '../support/db';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_transactions');

interface Account {
  _id: string;
  balance: number;
}

test('withTransaction commits every write of its callback together', async () => {
  const accounts = shared.db.collection<Account>('tx_commit');
  await accounts.insertMany([
    { _id: 'a', balance: 100 },
    { _id: 'b', balance: 0 },
  ]);
  const session = shared.client.startSession();
  try {
    await session.withTransaction(async () => {
      await accounts.updateOne({ _id: 'a' }, { $inc: { balance: -30 } }, { session });
      await accounts.updateOne({ _id: 'b' }, { $inc: { balance: 30 } }, { session });
      await shared.db
        .collection('tx_commit_log')
        .insertOne({ from: 'a', to: 'b', amount: 30 }, { session });
    });
  } finally {
    await session.endSession();
  }
  expect(await accounts.find().sort({ _id: 1 }).toArray()).toEqual([
    { _id: 'a', balance: 70 },
    { _id: 'b', balance: 30 },
  ]);
  expect(await shared.db.collection('tx_commit_log').countDocuments()).toBe(1);
});

test('a second transaction writing the same document gets WriteConflict, transient; only the first commits', async () => {
  const counters = shared.db.collection<{ _id: string; n: number }>('tx_conflict');
  await counters.insertOne({ _id: 'c', n: 0 });
  const first = shared.client.startSession();
  const second = shared.client.startSession();
  try {
    first.startTransaction();
    second.startTransaction();
    await counters.updateOne({ _id: 'c' }, { $inc: { n: 1 } }, { session: first });
    const conflict = await counters
      .updateOne({ _id: 'c' }, { $inc: { n: 10 } }, { session: second })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(conflict).toBeInstanceOf(MongoServerError);
    expect(conflict).toMatchObject({ code: 112, codeName: 'WriteConflict' });
    expect((conflict as MongoServerError).hasErrorLabel('TransientTransactionError')).toBe(true);
    await first.commitTransaction();
    await expect(second.commitTransaction()).rejects.toMatchObject({ code: 251 });
  } finally {
    await first.endSession();
    await second.endSession();
  }
  expect(await counters.findOne({ _id: 'c' })).toEqual({ _id: 'c', n: 1 });
});

test("killSessions aborts the named session's open transaction at once: its locks are free, its commit is NoSuchTransaction", async () => {
  const counters = shared.db.collection<{ _id: string; n: number }>('tx_killed');
  await counters.insertOne({ _id: 'c', n: 0 });
  const killed = shared.client.startSession();
  const next = shared.client.startSession();
  try {
    killed.startTransaction();
    await counters.updateOne({ _id: 'c' }, { $inc: { n: 1 } }, { session: killed });
    await shared.client.db('admin').command({ killSessions: [killed.id] });
    next.startTransaction();
    await counters.updateOne({ _id: 'c' }, { $inc: { n: 10 } }, { session: next });
    await next.commitTransaction();
    await expect(killed.commitTransaction()).rejects.toMatchObject({ code: 251 });
  } finally {
    await killed.endSession();
    await next.endSession();
  }
  expect(await counters.findOne({ _id: 'c' })).toEqual({ _id: 'c', n: 10 });
});

test('an aborted transaction leaves nothing behind, not even the collection it created', async () => {
  const session = shared.client.startSession();
  const existing = shared.db.collection<Account>('tx_abort');
  await existing.insertOne({ _id: 'kept', balance: 1 });
  try {
    session.startTransaction();
    await existing.insertOne({ _id: 'new', balance: 2 }, { session });
    await existing.updateOne({ _id: 'kept' }, { $set: { balance: 99 } }, { session });
    await existing.deleteOne({ _id: 'kept' }, { session });
    await shared.db.collection('tx_abort_created').insertOne({ x: 1 }, { session });
    await session.abortTransaction();
  } finally {
    await session.endSession();
  }
  expect(await existing.find().toArray()).toEqual([{ _id: 'kept', balance: 1 }]);
  const names = await shared.db.listCollections({ name: 'tx_abort_created' }).toArray();
  expect(names).toEqual([]);
});

test('another client sees no write of an open transaction; the transaction keeps reading its snapshot', async () => {
  const docs = shared.db.collection<{ _id: number; v: string }>('tx_isolation');
  await docs.insertOne({ _id: 1, v: 'before' });
  const other = await connectTestClient();
  const otherDocs = other
    .db(shared.db.databaseName)
    .collection<{ _id: number; v: string }>('tx_isolation');
  const session = shared.client.startSession();
  try {
    session.startTransaction({ readConcern: { level: 'snapshot' } });
    expect(await docs.findOne({ _id: 1 }, { session })).toEqual({ _id: 1, v: 'before' });
    await docs.insertOne({ _id: 2, v: 'inside' }, { session });
    await docs.updateOne({ _id: 1 }, { $set: { v: 'inside' } }, { session });
    expect(await otherDocs.find().sort({ _id: 1 }).toArray()).toEqual([{ _id: 1, v: 'before' }]);
    // a write outside the transaction, to a document it did not touch, commits at once ...
    await otherDocs.insertOne({ _id: 3, v: 'outside' });
    // ... and the transaction, reading its snapshot, does not see it
    expect(await docs.find({}, { session }).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, v: 'inside' },
      { _id: 2, v: 'inside' },
    ]);
    await session.commitTransaction();
  } finally {
    await session.endSession();
    await other.close();
  }
  expect(await docs.find().sort({ _id: 1 }).toArray()).toEqual([
    { _id: 1, v: 'inside' },
    { _id: 2, v: 'inside' },
    { _id: 3, v: 'outside' },
  ]);
});

test('32 clients incrementing one counter in transactions at once: conflicts retried, none lost, none twice', async () => {
  const CLIENTS = 32;
  const ROUNDS = 4;
  const counters = shared.db.collection<{ _id: string; n: Long | number }>('tx_contended');
  await counters.insertOne({ _id: 'c', n: 0 });
  const log = shared.db.collection<{ _id: string; n: number }>('tx_contended_log');
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, () => connectTestClient({ maxPoolSize: 2 })),
  );
  try {
    await Promise.all(
      clients.map(async (client, c) => {
        const db = client.db(shared.db.databaseName);
        const session = client.startSession();
        try {
          for (let round = 0; round < ROUNDS; round++) {
            await session.withTransaction(async () => {
              const after = await db
                .collection<{ _id: string; n: Long | number }>('tx_contended')
                .findOneAndUpdate(
                  { _id: 'c' },
                  { $inc: { n: 1 } },
                  { session, returnDocument: 'after' },
                );
              await db
                .collection<{ _id: string; n: number }>('tx_contended_log')
                .insertOne({ _id: `${c}-${round}`, n: Number(after!.n) }, { session });
            });
          }
        } finally {
          await session.endSession();
        }
      }),
    );
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
  const total = CLIENTS * ROUNDS;
  expect(Number((await counters.findOne({ _id: 'c' }))!.n)).toBe(total);
  const seen = (await log.find().toArray()).map((entry) => entry.n).sort((a, b) => a - b);
  expect(seen).toEqual(Array.from({ length: total }, (_, i) => i + 1));
});
