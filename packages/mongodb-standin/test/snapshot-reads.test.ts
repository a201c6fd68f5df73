/**
 * Where the stand-in's snapshot reads end (state/snapshot-reads.ts): a time it holds no capture
 * of is SnapshotTooOld (239), a time after the cluster time is refused, and a standalone refuses
 * snapshot reads by name; never the data of another time.
 */
import { MongoClient, Timestamp } from 'mongodb';
import { startStandin } from '../src';

test('a snapshot read at a time without a capture is SnapshotTooOld; a future time is refused', async () => {
  const standin = await startStandin({ log: () => undefined });
  const client = await MongoClient.connect(standin.uri);
  try {
    const db = client.db('snap');
    const first = await db.command({ insert: 'c', documents: [{ _id: 1 }] });
    await db.command({ insert: 'c', documents: [{ _id: 2 }] });
    const read = (atClusterTime: Timestamp) =>
      db
        .command({ find: 'c', readConcern: { level: 'snapshot', atClusterTime } })
        .catch((e: unknown) => e);
    await expect(read(first.operationTime)).resolves.toMatchObject({
      code: 239,
      codeName: 'SnapshotTooOld',
    });
    const later = new Timestamp({ t: first.operationTime.high + 3600, i: 1 });
    await expect(read(later)).resolves.toMatchObject({ code: 72, codeName: 'InvalidOptions' });
    const now = await db.command({ find: 'c', readConcern: { level: 'snapshot' } });
    expect(now.cursor.firstBatch).toEqual([{ _id: 1 }, { _id: 2 }]);
    await db.command({ insert: 'c', documents: [{ _id: 3 }] });
    const again = await read(now.cursor.atClusterTime);
    expect((again as { cursor: { firstBatch: unknown[] } }).cursor.firstBatch).toHaveLength(2);
  } finally {
    await client.close();
    await standin.stop();
  }
});

test('a standalone refuses snapshot reads by name', async () => {
  const standin = await startStandin({ replSet: null, log: () => undefined });
  const client = await MongoClient.connect(standin.uri);
  try {
    await expect(
      client.db('snap').command({ find: 'c', readConcern: { level: 'snapshot' } }),
    ).rejects.toMatchObject({ code: 2, message: expect.stringMatching(/snapshot.*standalone/) });
  } finally {
    await client.close();
    await standin.stop();
  }
});
