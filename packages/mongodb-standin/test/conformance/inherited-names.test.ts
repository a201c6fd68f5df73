/**
 * Field names that every JavaScript object inherits (`constructor`, `toString`, `__proto__`) are
 * plain field names to MongoDB: absent unless a document holds them, and stored as data when
 * written. Found trying the stand-in with mongosh: `{ constructor: { $exists: true } }` matched
 * every document, `$inc` on `a.constructor` was refused as a "function", and `$set` through
 * `a.__proto__` changed no document but Object.prototype of the stand-in's process, after which
 * `{ polluted: { $exists: true } }` matched every document.
 */
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_inherited_names');

beforeEach(async () => {
  const coll = shared.db.collection('fields');
  await coll.deleteMany({});
  await coll.insertMany([{ _id: 1, a: {} }, { _id: 2 }] as never[]);
});

test.each(['constructor', 'toString', 'hasOwnProperty', 'a.constructor'])(
  'a document without %s does not have it',
  async (name) => {
    const coll = shared.db.collection('fields');
    expect(await coll.countDocuments({ [name]: { $exists: true } })).toBe(0);
    expect(await coll.countDocuments({ [name]: null })).toBe(2);
  },
);

test('$inc on a field named constructor creates it', async () => {
  const coll = shared.db.collection('fields');
  await coll.updateOne({ _id: 1 } as never, { $inc: { 'a.constructor': 1 } });
  expect(await coll.findOne({ _id: 1 } as never)).toEqual({ _id: 1, a: { constructor: 1 } });
  expect(await coll.countDocuments({ 'a.constructor': 1 })).toBe(1);
});

test('$set through a field named __proto__ stores it as data and pollutes nothing', async () => {
  const coll = shared.db.collection('fields');
  const result = await coll.updateOne({ _id: 2 } as never, {
    $set: { 'b.__proto__.polluted': 1 },
  });
  expect(result.modifiedCount).toBe(1);
  const stored = await coll.findOne({ _id: 2 } as never);
  expect(Object.getOwnPropertyNames(stored?.b)).toEqual(['__proto__']);
  expect(await coll.countDocuments({ 'b.__proto__.polluted': 1 })).toBe(1);
  expect(await coll.countDocuments({ polluted: { $exists: true } })).toBe(0);
});

test('a pipeline update and $group write a field named __proto__ as data', async () => {
  const coll = shared.db.collection('fields');
  await coll.updateOne({ _id: 1 } as never, [{ $set: { ['__proto__']: { $literal: 7 } } }]);
  const stored = await coll.findOne({ _id: 1 } as never);
  expect(Object.getOwnPropertyNames(stored)).toEqual(['_id', 'a', '__proto__']);
  const grouped = await coll
    .aggregate([{ $group: { _id: null, ['__proto__']: { $sum: 1 } } }])
    .toArray();
  expect(Object.getOwnPropertyNames(grouped[0])).toEqual(['_id', '__proto__']);
  expect(await coll.countDocuments({ ['__proto__']: 7 } as never)).toBe(1);
});
