/**
 * Driver-level CRUD behaviour that must be identical on real MongoDB and the stand-in:
 * inserts, finds with getMore, findOneAndUpdate upserts, and E11000 error shapes.
 */
import { Long, MongoServerError } from 'mongodb';
import { connectTestClient } from '../support/db';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_crud');

test('inserted documents come back from find with their values and types', async () => {
  const items = shared.db.collection('items');
  await items.insertOne({ _id: 1 as never, name: 'one', big: Long.fromString('9007199254740993') });
  const found = await items.find({ _id: 1 as never }).toArray();
  expect(found).toEqual([{ _id: 1, name: 'one', big: Long.fromString('9007199254740993') }]);
});

test('find over 450 documents spans several batches through getMore and returns all in order', async () => {
  const many = shared.db.collection('many');
  await many.insertMany(Array.from({ length: 450 }, (_, i) => ({ _id: i as never, i })));
  const commands: string[] = [];
  const listener = (event: { commandName: string }) => commands.push(event.commandName);
  const monitored = await connectTestClient({ monitorCommands: true });
  monitored.on('commandStarted', listener);
  const all = await monitored
    .db(shared.db.databaseName)
    .collection('many')
    .find({})
    .sort({ _id: 1 })
    .toArray();
  await monitored.close();
  expect(all.map((doc) => doc.i)).toEqual(Array.from({ length: 450 }, (_, i) => i));
  expect(commands.filter((name) => name === 'getMore').length).toBeGreaterThanOrEqual(1);
});

test('findOneAndUpdate with upsert creates the document from the filter and returns the post-image', async () => {
  const counters = shared.db.collection<{ _id: string; seq: Long; name?: string }>('counters');
  const first = await counters.findOneAndUpdate(
    { _id: 'orders' },
    { $inc: { seq: Long.fromNumber(1) }, $setOnInsert: { name: 'orders' } },
    { upsert: true, returnDocument: 'after' },
  );
  expect(first).toEqual({ _id: 'orders', seq: 1, name: 'orders' });
  const second = await counters.findOneAndUpdate(
    { _id: 'orders' },
    { $inc: { seq: Long.fromNumber(1) }, $setOnInsert: { name: 'ignored' } },
    { upsert: true, returnDocument: 'after' },
  );
  expect(second).toEqual({ _id: 'orders', seq: 2, name: 'orders' });
  expect(await counters.countDocuments({ _id: 'orders', seq: { $type: 'long' } })).toBe(1);
});

test('findOneAndUpdate returnDocument before returns the pre-image, or null when it upserted', async () => {
  const coll = shared.db.collection<{ _id: string; n: number }>('before');
  expect(
    await coll.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } }, { upsert: true }),
  ).toBeNull();
  expect(await coll.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } })).toEqual({ _id: 'a', n: 1 });
  expect(await coll.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 2 });
});

function duplicateKeyError(error: unknown): MongoServerError {
  expect(error).toBeInstanceOf(MongoServerError);
  return error as MongoServerError;
}

test('a duplicate _id on insert is E11000 naming the collection, index and key', async () => {
  const coll = shared.db.collection('dup_id');
  await coll.insertOne({ _id: 7 as never });
  const error = duplicateKeyError(
    await coll.insertOne({ _id: 7 as never }).catch((e: unknown) => e),
  );
  expect(error.code).toBe(11000);
  expect(error.message).toBe(
    `E11000 duplicate key error collection: ${shared.db.databaseName}.dup_id index: _id_ dup key: { _id: 7 }`,
  );
  expect(error.keyPattern).toEqual({ _id: 1 });
  expect(error.keyValue).toEqual({ _id: 7 });
});

test('a duplicate on a secondary unique index from findOneAndUpdate is DuplicateKey with keyPattern and keyValue', async () => {
  const users = shared.db.collection('users_unique');
  await users.createIndex(
    { email: 1 },
    { unique: true, partialFilterExpression: { email: { $type: 'string' } } },
  );
  await users.insertOne({ _id: 1 as never, email: 'a@example.com' });
  const error = duplicateKeyError(
    await users
      .findOneAndUpdate({ _id: 2 as never }, { $set: { email: 'a@example.com' } }, { upsert: true })
      .catch((e: unknown) => e),
  );
  expect(error.code).toBe(11000);
  expect(error.codeName).toBe('DuplicateKey');
  expect(error.message).toBe(
    `E11000 duplicate key error collection: ${shared.db.databaseName}.users_unique index: email_1 dup key: { email: "a@example.com" }`,
  );
  expect(error.keyPattern).toEqual({ email: 1 });
  expect(error.keyValue).toEqual({ email: 'a@example.com' });
  expect(await users.countDocuments({})).toBe(1);
});

test('a partial unique index ignores documents outside its filter', async () => {
  const users = shared.db.collection('users_partial');
  await users.createIndex(
    { email: 1 },
    { unique: true, partialFilterExpression: { email: { $type: 'string' } } },
  );
  await users.insertMany([{ name: 'no email' }, { name: 'no email either' }, { email: null }]);
  expect(await users.countDocuments({})).toBe(3);
});

test('a missing field indexes as null in a non-partial unique index', async () => {
  const coll = shared.db.collection('missing_as_null');
  await coll.createIndex({ code: 1 }, { unique: true });
  await coll.insertOne({ _id: 1 as never });
  const error = await coll.insertOne({ _id: 2 as never }).catch((e: unknown) => e);
  expect((error as MongoServerError).code).toBe(11000);
  expect((error as MongoServerError).message).toMatch(/index: code_1 dup key: \{ code: null \}$/);
  expect((error as MongoServerError).keyValue).toEqual({ code: null });
});

test('sorting mixes types in BSON order and compares numbers by value across types', async () => {
  const coll = shared.db.collection('mixed_sort');
  await coll.insertMany([
    { _id: 1 as never, v: 'a' },
    { _id: 2 as never, v: Long.fromNumber(3) },
    { _id: 3 as never, v: null },
    { _id: 4 as never, v: 1.5 },
    { _id: 5 as never, v: 2 },
    { _id: 6 as never, v: { x: 1 } },
    { _id: 7 as never, v: true },
  ]);
  const ascending = await coll.find({}).sort({ v: 1 }).toArray();
  expect(ascending.map((doc) => doc._id)).toEqual([3, 4, 5, 2, 1, 6, 7]);
  const descending = await coll
    .find({ v: { $gt: 1 } })
    .sort({ v: -1 })
    .toArray();
  expect(descending.map((doc) => doc._id)).toEqual([2, 5, 4]);
});
