/**
 * Updates people type to repair data: `arrayFilters` with `$[<identifier>]` and `$[]`, and
 * `hint` on deletes and updates (an existing index by name or key; an unknown one is refused).
 */
import { MongoServerError } from 'mongodb';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_repair');

describe('arrayFilters', () => {
  beforeEach(async () => {
    await shared.db.collection('grades').deleteMany({});
    await shared.db.collection('grades').insertMany([
      { _id: 1 as never, scores: [95, 80, 102], items: [{ q: 1, tags: ['a'] }, { q: 5 }] },
      { _id: 2 as never, scores: [70, 101], items: [{ q: 9, tags: ['b', 'a'] }] },
    ]);
  });

  test('$[<identifier>] updates only the elements its filter matches, in every matched document', async () => {
    const coll = shared.db.collection('grades');
    const result = await coll.updateMany(
      {},
      { $set: { 'scores.$[high]': 100 } },
      { arrayFilters: [{ high: { $gt: 100 } }] },
    );
    expect(result).toMatchObject({ matchedCount: 2, modifiedCount: 2 });
    expect(await coll.find({}).sort({ _id: 1 }).project({ scores: 1 }).toArray()).toEqual([
      { _id: 1, scores: [95, 80, 100] },
      { _id: 2, scores: [70, 100] },
    ]);
  });

  test('filters on fields of embedded documents, nested identifiers and $[] for all elements', async () => {
    const coll = shared.db.collection('grades');
    await coll.updateOne(
      { _id: 1 as never },
      { $inc: { 'items.$[big].q': 10 }, $set: { 'scores.$[]': 0 } },
      { arrayFilters: [{ 'big.q': { $gte: 5 } }] },
    );
    await coll.updateOne(
      { _id: 2 as never },
      { $set: { 'items.$[i].tags.$[t]': 'z' } },
      { arrayFilters: [{ 'i.q': 9 }, { t: 'a' }] },
    );
    expect(await coll.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, scores: [0, 0, 0], items: [{ q: 1, tags: ['a'] }, { q: 15 }] },
      { _id: 2, scores: [70, 101], items: [{ q: 9, tags: ['b', 'z'] }] },
    ]);
  });

  test('findOneAndUpdate takes arrayFilters too', async () => {
    const updated = await shared.db
      .collection('grades')
      .findOneAndUpdate(
        { _id: 2 as never },
        { $set: { 'scores.$[low]': 75 } },
        { arrayFilters: [{ low: { $lt: 75 } }], returnDocument: 'after' },
      );
    expect(updated?.scores).toEqual([75, 101]);
  });

  async function updateError(update: object, arrayFilters?: object[]): Promise<number> {
    const error = await shared.db
      .collection('grades')
      .updateOne({ _id: 1 as never }, update, arrayFilters ? { arrayFilters } : {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoServerError);
    return (error as MongoServerError).code as number;
  }

  test('an identifier without a filter, an unused filter, and a path that is no array are refused', async () => {
    expect(await updateError({ $set: { 'scores.$[x]': 1 } })).toBe(2);
    expect(await updateError({ $set: { 'scores.0': 1 } }, [{ x: 1 }])).toBe(9);
    expect(await updateError({ $set: { 'missing.$[]': 1 } })).toBe(2);
    expect(await shared.db.collection('grades').findOne({ _id: 1 as never })).toMatchObject({
      scores: [95, 80, 102],
    });
  });
});

describe('hint on writes', () => {
  beforeAll(async () => {
    const coll = shared.db.collection('hinted');
    await coll.createIndex({ x: 1 }, { name: 'x_1' });
    await coll.insertMany([
      { _id: 1 as never, x: 11 },
      { _id: 2 as never, x: 22 },
      { _id: 3 as never, x: 33 },
    ]);
  });

  test('deleteOne and deleteMany accept a hint by name or key pattern', async () => {
    const coll = shared.db.collection('hinted');
    expect((await coll.deleteOne({ _id: 1 as never }, { hint: '_id_' })).deletedCount).toBe(1);
    expect((await coll.deleteMany({ x: { $gt: 30 } }, { hint: { x: 1 } })).deletedCount).toBe(1);
    expect(await coll.find({}).toArray()).toEqual([{ _id: 2, x: 22 }]);
  });

  test('a hint naming no index is refused and nothing changes', async () => {
    const coll = shared.db.collection('hinted');
    const deleteError = await coll
      .deleteOne({ _id: 2 as never }, { hint: 'nope_1' })
      .catch((e: unknown) => e);
    expect((deleteError as MongoServerError).code).toBe(2);
    const updateError = await coll
      .updateOne({ _id: 2 as never }, { $set: { y: 1 } }, { hint: { y: 1 } })
      .catch((e: unknown) => e);
    expect((updateError as MongoServerError).code).toBe(2);
    expect(await coll.find({}).toArray()).toEqual([{ _id: 2, x: 22 }]);
  });
});
