import { Long, MongoClient } from 'mongodb';
import { startStandin } from '../../src/standin';
async function main() {
  const s = await startStandin();
  const c = await MongoClient.connect(s.uri, { maxPoolSize: 32 });
  const coll = c.db('x').collection<{ _id: string; seq: Long }>('c');
  let next = 0;
  const t = process.cpuUsage();
  const w = Date.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next++ < 5000)
        await coll.findOneAndUpdate(
          { _id: 'c' },
          { $inc: { seq: Long.ONE } },
          { upsert: true, returnDocument: 'after' },
        );
    }),
  );
  const u = process.cpuUsage(t);
  console.log(
    'cpu ms per op',
    (u.user + u.system) / 1000 / 5000,
    'wall ms per op',
    (Date.now() - w) / 5000,
  );
  await c.close();
  await s.stop();
}
main();
