/**
 * Benchmark of the stand-in through the official driver (not a test; run with
 * `npx tsx test/standin/measure.ts`): with 32 operations in flight, findOneAndUpdate ($inc on
 * one counter, upsert, returnDocument after) and single-document inserts per second, then RSS
 * after storing 100,000 small documents. Prints one JSON line per figure.
 */
import { Long, MongoClient } from 'mongodb';
import { startStandin } from '../../src/standin';

const CONCURRENCY = 32;

async function throughput(
  name: string,
  total: number,
  operation: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) await operation(next++);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(
    JSON.stringify({
      figure: name,
      operations: total,
      concurrency: CONCURRENCY,
      seconds: +seconds.toFixed(3),
      perSecond: Math.round(total / seconds),
    }),
  );
}

async function main(): Promise<void> {
  const standin = await startStandin();
  const client = await MongoClient.connect(standin.uri, { maxPoolSize: CONCURRENCY });
  const db = client.db('measure');
  const counters = db.collection<{ _id: string; seq: Long }>('counters');
  const users = db.collection<{ _id: number; name: string }>('users');
  await throughput('warm-up', 2_000, () =>
    counters.findOneAndUpdate({ _id: 'warm' }, { $inc: { seq: Long.ONE } }, { upsert: true }),
  );
  await throughput('findOneAndUpdate $inc upsert returnDocument after', 30_000, () =>
    counters.findOneAndUpdate(
      { _id: 'c' },
      { $inc: { seq: Long.ONE } },
      { upsert: true, returnDocument: 'after' },
    ),
  );
  await throughput('insertOne', 30_000, (i) => users.insertOne({ _id: i, name: `user ${i}` }));
  await throughput('find sort _id -1 limit 1 (30k docs)', 30_000, () =>
    users.find({}).sort({ _id: -1 }).limit(1).toArray(),
  );
  const bulk = db.collection<{ _id: number; name: string; email: string; createdAt: Date }>('bulk');
  const before = process.memoryUsage().rss;
  for (let start = 0; start < 100_000; start += 1_000) {
    await bulk.insertMany(
      Array.from({ length: 1_000 }, (_, i) => ({
        _id: start + i,
        name: `user ${start + i}`,
        email: `user${start + i}@example.com`,
        createdAt: new Date(),
      })),
    );
  }
  global.gc?.();
  const after = process.memoryUsage().rss;
  console.log(
    JSON.stringify({
      figure: 'rss after 100,000 small documents (stand-in and driver in one process)',
      documents: await bulk.countDocuments(),
      rssMB: Math.round(after / 2 ** 20),
      rssGrowthMB: Math.round((after - before) / 2 ** 20),
    }),
  );
  await client.close();
  await standin.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
