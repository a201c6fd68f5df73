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

  test('the positional $ updates the first element the query matched', async () => {
    const coll = shared.db.collection('grades');
    await coll.updateOne({ _id: 1 as never, scores: { $lt: 90 } }, { $set: { 'scores.$': 90 } });
    await coll.updateOne({ 'items.q': 9 }, { $inc: { 'items.$.q': 1 } });
    await coll.updateMany({ scores: { $gte: 100 } }, { $set: { 'scores.$': 100 } });
    expect(await coll.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, scores: [95, 90, 100], items: [{ q: 1, tags: ['a'] }, { q: 5 }] },
      { _id: 2, scores: [70, 100], items: [{ q: 10, tags: ['b', 'a'] }] },
    ]);
    const error = await coll
      .updateOne({ _id: 1 as never }, { $set: { 'scores.$': 0 } })
      .catch((e: unknown) => e);
    expect((error as MongoServerError).code).toBe(2);
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

describe('pipeline-style updates and let', () => {
  beforeEach(async () => {
    const coll = shared.db.collection('orders');
    await coll.deleteMany({});
    await coll.insertMany([
      { _id: 1 as never, name: 'ada', a: 2, b: 3, meta: { y: 2 } },
      { _id: 2 as never, name: 'bob', a: 5, b: null },
    ]);
  });

  test('$set computes from the document, merges embedded documents, $unset removes', async () => {
    const coll = shared.db.collection('orders');
    const result = await coll.updateMany({}, [
      { $set: { total: { $add: ['$a', '$b'] }, meta: { fixed: true }, at: '$$NOW' } },
      { $unset: ['b'] },
    ]);
    expect(result).toMatchObject({ matchedCount: 2, modifiedCount: 2 });
    const docs = await coll.find({}).sort({ _id: 1 }).toArray();
    expect(docs.map(({ at: _at, ...rest }) => rest)).toEqual([
      { _id: 1, name: 'ada', a: 2, meta: { y: 2, fixed: true }, total: 5 },
      { _id: 2, name: 'bob', a: 5, total: null, meta: { fixed: true } },
    ]);
    expect(docs.every((doc) => doc.at instanceof Date)).toBe(true);
    expect(docs[0].at).toEqual(docs[1].at);
  });

  test('$replaceWith and $project reshape the document and keep its _id', async () => {
    const coll = shared.db.collection('orders');
    await coll.updateOne({ _id: 1 as never }, [
      { $replaceWith: { _id: '$_id', who: '$name', sum: { $add: ['$a', 10] } } },
    ]);
    await coll.updateOne({ _id: 2 as never }, [{ $project: { name: 1 } }]);
    expect(await coll.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, who: 'ada', sum: 12 },
      { _id: 2, name: 'bob' },
    ]);
  });

  test('let variables reach $expr in find, aggregate, update and delete, and pipeline updates', async () => {
    const coll = shared.db.collection('orders');
    const found = await coll.find({ $expr: { $eq: ['$name', '$$who'] } }, { let: { who: 'ada' } });
    expect((await found.toArray()).map((doc) => doc._id)).toEqual([1]);
    const aggregated = await coll
      .aggregate([{ $match: { $expr: { $gt: ['$a', '$$min'] } } }], { let: { min: 3 } })
      .toArray();
    expect(aggregated.map((doc) => doc._id)).toEqual([2]);
    await coll.updateOne({ $expr: { $eq: ['$_id', '$$id'] } }, [{ $set: { tag: '$$label' } }], {
      let: { id: 1, label: 'checked' },
    });
    expect(await coll.findOne({ _id: 1 as never })).toMatchObject({ tag: 'checked' });
    await coll.deleteMany({ $expr: { $eq: ['$name', '$$gone'] } }, { let: { gone: 'bob' } });
    expect(await coll.countDocuments({})).toBe(1);
  });

  test('$replaceRoot keeps the _id; $setField and $getField name fields holding dots and $', async () => {
    const coll = shared.db.collection('orders');
    await coll.updateOne({ _id: 1 as never }, [{ $replaceRoot: { newRoot: '$meta' } }]);
    await coll.updateOne({ _id: 2 as never }, [
      {
        $replaceWith: {
          $setField: { field: { $literal: '$price.usd' }, value: '$a', input: '$$ROOT' },
        },
      },
    ]);
    expect(await coll.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, y: 2 },
      { _id: 2, name: 'bob', a: 5, b: null, '$price.usd': 5 },
    ]);
    const [read] = await coll
      .aggregate([
        { $match: { _id: 2 } },
        { $set: { price: { $getField: { $literal: '$price.usd' } } } },
        { $project: { price: 1 } },
      ])
      .toArray();
    expect(read).toEqual({ _id: 2, price: 5 });
  });

  async function pipelineError(pipeline: object[], options = {}): Promise<number> {
    const error = await shared.db
      .collection('orders')
      .updateOne({ _id: 1 as never }, pipeline, options)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoServerError);
    return (error as MongoServerError).code as number;
  }

  test('stages an update may not use, undefined variables and a changed _id are refused', async () => {
    expect(await pipelineError([{ $match: { a: 1 } }])).toBe(72);
    expect(await pipelineError([{ $set: { x: '$$nope' } }])).toBe(17276);
    expect(await pipelineError([{ $set: { _id: 9 } }])).toBe(66);
    expect(await shared.db.collection('orders').findOne({ _id: 1 as never })).toEqual({
      _id: 1,
      name: 'ada',
      a: 2,
      b: 3,
      meta: { y: 2 },
    });
  });
});
