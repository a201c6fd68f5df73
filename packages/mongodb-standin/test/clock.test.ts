/**
 * The `clock` option: what `$$NOW` reads in every command that evaluates expressions, so a test
 * of code that reads the database's clock can put the server on either side of a midnight.
 */
import os from 'node:os';
import { MongoClient } from 'mongodb';
import { RunningStandin, startStandin } from '../src';

let now = Date.parse('2026-12-31T22:59:59.999Z');
let standin: RunningStandin;
let client: MongoClient;

beforeAll(async () => {
  standin = await startStandin({ log: () => undefined, clock: () => now });
  client = await MongoClient.connect(standin.uri, { runtimeAdapters: { os } });
});

afterAll(async () => {
  await client.close();
  await standin.stop();
});

test('$$NOW follows the clock given, in updates, finds and aggregations', async () => {
  const coll = client.db('clock').collection('docs');
  await coll.insertOne({ _id: 1 as never });
  const year = { $dateToString: { date: '$$NOW', format: '%Y', timezone: 'Europe/Berlin' } };
  const first = await coll.findOneAndUpdate(
    { _id: 1 as never },
    [{ $set: { year, at: '$$NOW' } }],
    {
      returnDocument: 'after',
    },
  );
  expect(first).toMatchObject({ year: '2026', at: new Date(now) });
  now += 1;
  await coll.updateOne({ _id: 1 as never }, [{ $set: { year, at: '$$NOW' } }]);
  expect(await coll.findOne({ _id: 1 as never })).toMatchObject({
    year: '2027',
    at: new Date('2026-12-31T23:00:00.000Z'),
  });
  expect(await coll.countDocuments({ $expr: { $eq: ['$at', '$$NOW'] } })).toBe(1);
  const [projected] = await coll.aggregate([{ $project: { now: '$$NOW' } }]).toArray();
  expect(projected.now).toEqual(new Date(now));
});
