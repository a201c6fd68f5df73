/**
 * TTL passes on the stand-in (engine/ttl.ts, state/ttl-monitor.ts): a pass's removals are
 * journaled as any delete is, so they and the TTL index survive kill -9; a document an open
 * transaction wrote stays until the transaction ends, while the pass removes the others.
 * test/conformance/ttl.test.ts holds what mongod does alike.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { startStandin } from '../src';
import { killed, startCli } from './cli-process';
import { freshDataDir } from './data-dir';

const dataDir = freshDataDir('standin-ttl-');

/** Polls `done` every 50 ms until it holds or `ms` pass; says whether it held. */
async function until(done: () => Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await done()) return true;
    await sleep(50);
  }
  return done();
}

function connect(uri: string): Promise<MongoClient> {
  return MongoClient.connect(uri, { serverSelectionTimeoutMS: 5_000 });
}

test('what a TTL pass removed, and the TTL index, survive kill -9', async () => {
  const first = await startCli(dataDir.path);
  const before = await connect(first.uri);
  try {
    await before.db('admin').command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
    const sessions = before.db('ttl').collection<{ _id: string; at: Date }>('sessions');
    await sessions.createIndex({ at: 1 }, { expireAfterSeconds: 60 });
    await sessions.insertMany([
      { _id: 'old', at: new Date(Date.now() - 120_000) },
      { _id: 'new', at: new Date() },
    ]);
    // a reply leaves only once every change made before it is on disk, the pass's too
    expect(await until(async () => (await sessions.countDocuments({ _id: 'old' })) === 0)).toBe(
      true,
    );
  } finally {
    await before.close();
    await killed(first.child);
  }
  const second = await startCli(dataDir.path);
  const after = await connect(second.uri);
  try {
    const sessions = after.db('ttl').collection<{ _id: string; at: Date }>('sessions');
    expect(await sessions.find().toArray()).toEqual([{ _id: 'new', at: expect.any(Date) }]);
    expect(await sessions.indexes()).toContainEqual(
      expect.objectContaining({ key: { at: 1 }, expireAfterSeconds: 60 }),
    );
    // what a start sends for its indexes: the same index again is nothing new
    await sessions.createIndex({ at: 1 }, { expireAfterSeconds: 60 });
  } finally {
    await after.close();
    await killed(second.child);
  }
});

test('a TTL index read back from a snapshot is the same index when created again', async () => {
  const first = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const before = await connect(first.uri);
  await before.db('ttl').collection('windows').createIndex({ at: -1 }, { expireAfterSeconds: 0 });
  await before.close();
  await first.stop(); // a clean stop writes a snapshot
  const second = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const after = await connect(second.uri);
  try {
    const windows = after.db('ttl').collection('windows');
    await windows.createIndex({ at: -1 }, { expireAfterSeconds: 0 });
    await expect(windows.createIndex({ at: -1 }, { expireAfterSeconds: 1 })).rejects.toMatchObject({
      code: 85,
    });
  } finally {
    await after.close();
    await second.stop();
  }
});

test('a document an open transaction wrote stays until the transaction ends; the others go', async () => {
  const standin = await startStandin({ log: () => undefined });
  const client = await connect(standin.uri);
  const session = client.startSession();
  try {
    const held = client.db('ttl').collection<{ _id: number; at: Date; n?: number }>('held');
    await held.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
    const past = new Date(Date.now() - 60_000);
    await held.insertMany([
      { _id: 1, at: past },
      { _id: 2, at: past },
    ]);
    session.startTransaction();
    await held.updateOne({ _id: 1 }, { $set: { n: 1 } }, { session });
    await client.db('admin').command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
    expect(await until(async () => (await held.countDocuments({ _id: 2 })) === 0)).toBe(true);
    expect(await held.countDocuments({ _id: 1 })).toBe(1);
    await session.commitTransaction();
    expect(await until(async () => (await held.countDocuments()) === 0)).toBe(true);
  } finally {
    await session.endSession();
    await client.close();
    await standin.stop();
  }
});
