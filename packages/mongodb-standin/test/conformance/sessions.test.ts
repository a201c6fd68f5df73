/**
 * Snapshot reads and read concerns of sessions on a one-member replica set, here and on real
 * MongoDB: a snapshot session reads one point in time (the first read answers atClusterTime, later
 * reads see the data as then, not later writes); a write with readConcern snapshot outside a
 * transaction is refused; a linearizable read on the primary sees the last acknowledged write.
 */
import { CommandStartedEvent, Document, MongoServerError, Timestamp } from 'mongodb';
import { connectTestClient } from '../support/db';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_sessions');

test('a snapshot session reads the data as of its first read, whatever is written since', async () => {
  const client = await connectTestClient({ monitorCommands: true });
  const started: CommandStartedEvent[] = [];
  client.on('commandStarted', (event) => started.push(event));
  try {
    const coll = client.db(shared.db.databaseName).collection('snapshot');
    await coll.insertMany([
      { _id: 1 as never, x: 11 },
      { _id: 2 as never, x: 11 },
    ]);
    const session = client.startSession({ snapshot: true });
    await expect(coll.find({}, { session }).toArray()).resolves.toHaveLength(2);
    await coll.updateOne({ _id: 1 as never }, { $inc: { x: 1 } });
    await coll.insertOne({ _id: 3 as never, x: 33 });
    await expect(coll.find({}, { session }).toArray()).resolves.toEqual([
      { _id: 1, x: 11 },
      { _id: 2, x: 11 },
    ]);
    await expect(coll.distinct('x', {}, { session })).resolves.toEqual([11]);
    await expect(coll.countDocuments({}, { session })).resolves.toBe(2);
    await expect(coll.countDocuments({})).resolves.toBe(3);
    const reads = started.filter((event) => event.command.readConcern?.level === 'snapshot');
    expect((reads[0].command.readConcern as Document).atClusterTime).toBeUndefined();
    const at = (reads[1].command.readConcern as Document).atClusterTime;
    expect(at).toBeInstanceOf(Timestamp);
    expect(
      reads.slice(1).every((event) => event.command.readConcern.atClusterTime.equals(at)),
    ).toBe(true);
    await session.endSession();
  } finally {
    await client.close();
  }
});

test('a write with readConcern snapshot outside a transaction is refused by the server', async () => {
  const error = await shared.db
    .command({
      insert: 'snapshot_write',
      documents: [{ a: 1 }],
      readConcern: { level: 'snapshot' },
    })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MongoServerError);
  await expect(shared.db.collection('snapshot_write').countDocuments()).resolves.toBe(0);
});

test('a linearizable read on the primary sees the last acknowledged write', async () => {
  const coll = shared.db.collection('linearizable');
  await coll.insertOne({ _id: 'last' as never });
  await expect(
    coll.find({}, { readConcern: { level: 'linearizable' } }).toArray(),
  ).resolves.toEqual([{ _id: 'last' }]);
});
