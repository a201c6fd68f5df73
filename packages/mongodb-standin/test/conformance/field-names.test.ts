/**
 * MongoDB 5+'s rules on `$`-prefixed and dotted field names: data anywhere, except that `_id`
 * holds no `$`-prefixed name and is neither an array nor a regex, replacement documents have
 * no `$`-prefixed top-level name, and an update document is operators only.
 */
import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_field_names');

async function insertError(document: object): Promise<MongoServerError> {
  const error = await shared.db
    .collection('refused')
    .insertOne(document as never)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MongoServerError);
  return error as MongoServerError;
}

test.each([
  ['a $-prefixed name in _id', { _id: { $a: 1 } }, 52],
  ['a $-prefixed name beside others in _id', { _id: { a: 1, $b: 1 } }, 52],
  ['an array _id', { _id: [9] }, 2],
  ['a regex _id', { _id: /a/ }, 2],
])('an insert with %s is refused (%j, code %d) and stores nothing', async (_case, doc, code) => {
  expect((await insertError(doc)).code).toBe(code);
  expect(await shared.db.collection('refused').countDocuments({})).toBe(0);
});

test('dotted and $-prefixed names are stored as data, at the top level and nested', async () => {
  const coll = shared.db.collection('stored');
  const documents = [
    { _id: 1, $a: 1 },
    { _id: 2, 'a.b': 1 },
    { _id: 3, a: { $b: 1, 'c.d': 2 } },
    { _id: 5, a: { $db: 'foo' } },
    { _id: { 'a.b': 1 } },
  ];
  await coll.insertMany(documents as never[]);
  expect(await coll.find({}).sort({ _id: 1 }).toArray()).toEqual(documents);
  // A dotted name is a field, not a path: the query path a.b does not reach it.
  expect(await coll.countDocuments({ 'a.b': 1 })).toBe(0);
});

async function updateStatementError(statement: object): Promise<number | undefined> {
  const reply = await shared.db.command({
    update: 'updated',
    updates: [statement],
  });
  return (reply.writeErrors as Array<{ code: number }> | undefined)?.[0]?.code;
}

test('replacements and updates keep operators and data apart', async () => {
  const coll = shared.db.collection('updated');
  await coll.insertOne({ _id: 1 as never, a: 1 });
  expect(await updateStatementError({ q: { _id: 1 }, u: { a: 2, $b: 1 } })).toBe(52);
  expect(await updateStatementError({ q: { _id: 1 }, u: { $c: 1 } })).toBe(9);
  expect(await updateStatementError({ q: { _id: 1 }, u: { $set: { a: 3 }, b: 1 } })).toBe(9);
  expect(
    await updateStatementError({ q: { x: 1 }, u: { $set: { _id: { $bad: 1 } } }, upsert: true }),
  ).toBe(52);
  expect(
    await updateStatementError({ q: { 'a.b': 1 }, u: { $set: { '_id.$gt': 1 } }, upsert: true }),
  ).toBe(52);
  expect(await coll.find({}).toArray()).toEqual([{ _id: 1, a: 1 }]);

  await coll.replaceOne({ _id: 1 as never }, { a: { $c: 1, 'd.e': 2 } });
  expect(await coll.findOne({ _id: 1 as never })).toEqual({ _id: 1, a: { $c: 1, 'd.e': 2 } });
});

test('insertMany reports the refused _id as a write error and keeps the rest (unordered)', async () => {
  const coll = shared.db.collection('many');
  const error = await coll
    .insertMany([{ _id: 1 }, { _id: { $x: 1 } }, { _id: 3 }] as never[], { ordered: false })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MongoBulkWriteError);
  expect((error as MongoBulkWriteError).writeErrors).toMatchObject([{ index: 1, code: 52 }]);
  expect(await coll.countDocuments({})).toBe(2);
});
