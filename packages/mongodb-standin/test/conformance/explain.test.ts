/**
 * explain, as far as its meaning is the same on every MongoDB version and on the stand-in: the
 * documents and keys really examined and returned, the access path by name (a collection scan
 * for an unindexed filter, the unique index for its equality, the _id index), and explained
 * writes that change nothing.
 */
import { Document } from 'mongodb';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_explain');
const COUNT = 50;

beforeAll(async () => {
  const coll = shared.db.collection('items');
  await coll.createIndex({ code: 1 }, { unique: true, name: 'code_1' });
  await coll.insertMany(
    Array.from({ length: COUNT }, (_, i) => ({
      _id: i as never,
      code: `c${i}`,
      even: i % 2 === 0,
    })),
  );
});

function planText(explained: Document): string {
  return JSON.stringify(explained.queryPlanner.winningPlan);
}

test('an unindexed filter is a collection scan that examines every document', async () => {
  const explained = await shared.db
    .collection('items')
    .find({ even: true })
    .explain('executionStats');
  expect(planText(explained)).toContain('COLLSCAN');
  expect(explained.executionStats).toMatchObject({
    nReturned: COUNT / 2,
    totalDocsExamined: COUNT,
    totalKeysExamined: 0,
  });
});

test('an equality on a unique index reads one key and one document', async () => {
  const explained = await shared.db
    .collection('items')
    .find({ code: 'c7' })
    .explain('executionStats');
  expect(planText(explained)).toContain('IXSCAN');
  expect(planText(explained)).toContain('code_1');
  expect(explained.executionStats).toMatchObject({
    nReturned: 1,
    totalDocsExamined: 1,
    totalKeysExamined: 1,
  });
});

test('an _id equality examines one document; queryPlanner verbosity has no statistics', async () => {
  const stats = await shared.db
    .collection('items')
    .find({ _id: 3 as never })
    .explain('executionStats');
  expect(stats.executionStats).toMatchObject({ nReturned: 1, totalDocsExamined: 1 });
  const planner = await shared.db
    .collection('items')
    .find({ _id: 3 as never })
    .explain('queryPlanner');
  expect(planner.queryPlanner.namespace).toBe(`${shared.db.databaseName}.items`);
  expect(planner).not.toHaveProperty('executionStats');
});

test('explained update, delete and findAndModify change nothing', async () => {
  const coll = shared.db.collection('items');
  const before = await coll.find({}).sort({ _id: 1 }).toArray();
  for (const command of [
    { update: 'items', updates: [{ q: { even: true }, u: { $set: { x: 1 } }, multi: true }] },
    { delete: 'items', deletes: [{ q: { even: false }, limit: 0 }] },
    { findAndModify: 'items', query: { _id: 1 }, remove: true },
  ]) {
    const explained = await shared.db.command({ explain: command, verbosity: 'executionStats' });
    expect(explained.ok).toBe(1);
    expect(JSON.stringify(explained.queryPlanner.winningPlan)).toMatch(/UPDATE|DELETE/);
  }
  expect(await coll.find({}).sort({ _id: 1 }).toArray()).toEqual(before);
});

test('an aggregate explains the query its $match became', async () => {
  const explained = await shared.db
    .collection('items')
    .aggregate([{ $match: { code: 'c9' } }, { $group: { _id: '$even', n: { $sum: 1 } } }])
    .explain('queryPlanner');
  expect(JSON.stringify(explained)).toContain('code_1');
});
