/**
 * A transaction's commit is one journal record (a group record, state/durable-state.ts): the
 * stand-in, as its own process with a data directory, is SIGKILLed while 16 clients of the real
 * driver commit transactions through `session.withTransaction`, each taking the next number of
 * a counter and inserting a user with that number and the user's three orders. After the
 * restart every transaction is there whole or not at all: the users' numbers are exactly
 * 1..counter (no hole, no duplicate), every user has its three orders and every order its user,
 * and every acknowledged commit is there.
 */
import { Long, MongoClient } from 'mongodb';
import { killUnderLoadThenRead, startCli } from './cli-process';
import { freshDataDir } from './data-dir';

const CLIENTS = 16;
const ORDERS_PER_USER = 3;

const dataDir = freshDataDir('standin-txn-durability-');

interface Counter {
  _id: string;
  seq: number | Long;
}

test('SIGKILL under 16 clients committing transactions keeps each one whole or not at all', async () => {
  const first = await startCli(dataDir.path);
  const client = await MongoClient.connect(first.uri, {
    maxPoolSize: CLIENTS,
    serverSelectionTimeoutMS: 2_000,
  });
  const db = client.db('durable');
  await db.collection<Counter>('counters').insertOne({ _id: 'users', seq: Long.ZERO });
  await db.createCollection('users');
  await db.createCollection('orders');
  const acknowledged = new Set<number>();
  const worker = async (stopped: () => boolean) => {
    const session = client.startSession();
    try {
      while (!stopped()) {
        let id = 0;
        await session.withTransaction(async () => {
          const counter = await db
            .collection<Counter>('counters')
            .findOneAndUpdate(
              { _id: 'users' },
              { $inc: { seq: Long.ONE } },
              { session, returnDocument: 'after' },
            );
          id = Number(counter!.seq);
          await db
            .collection<{ _id: number; name: string }>('users')
            .insertOne({ _id: id, name: `user ${id}` }, { session });
          await db.collection<{ _id: string; user: number }>('orders').insertMany(
            Array.from({ length: ORDERS_PER_USER }, (_, i) => ({ _id: `${id}-${i}`, user: id })),
            { session },
          );
        });
        acknowledged.add(id);
      }
    } catch {
      // the server died under us: what was acknowledged before is what counts
    } finally {
      await session.endSession().catch(() => undefined);
    }
  };
  await killUnderLoadThenRead({
    first,
    dataDir: dataDir.path,
    client,
    clients: CLIENTS,
    worker,
    acknowledged: () => acknowledged.size,
    atLeast: 150,
    read: async (rdb) => {
      const counter = await rdb.collection<Counter>('counters').findOne({ _id: 'users' });
      const seq = Number(counter!.seq);
      const ids = (await rdb.collection<{ _id: number }>('users').find({}).toArray())
        .map((user) => user._id)
        .sort((a, b) => a - b);
      expect(ids).toEqual(Array.from({ length: seq }, (_, i) => i + 1));
      for (const id of acknowledged) expect(id).toBeLessThanOrEqual(seq);
      const orders = await rdb
        .collection<{ _id: string; user: number }>('orders')
        .find({})
        .toArray();
      expect(orders).toHaveLength(seq * ORDERS_PER_USER);
      const perUser = new Map<number, number>();
      for (const order of orders) perUser.set(order.user, (perUser.get(order.user) ?? 0) + 1);
      expect([...perUser.keys()].sort((a, b) => a - b)).toEqual(ids);
      expect([...perUser.values()].every((count) => count === ORDERS_PER_USER)).toBe(true);
    },
  });
});
