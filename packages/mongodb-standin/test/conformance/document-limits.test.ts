/**
 * mongod's bounds on one document: 16 MB of BSON and 180 levels of nesting. What is above them
 * is refused before anything is applied, so no other client ever sees it. Runs unchanged
 * against real MongoDB (raw OP_MSG where the driver will not send such a document).
 */
import { useConformanceDb } from './fixture';
import { bsonWithString, rawCommand } from './raw-wire';

const shared = useConformanceDb('conformance_document_limits');

const MB = 1024 * 1024;

/** The fields of `{ a: { a: ... { a: 1 } } }`, `levels` documents deep counting the outermost. */
function nested(levels: number): Record<string, unknown> {
  let doc: Record<string, unknown> = { a: 1 };
  for (let level = 1; level < levels; level++) doc = { a: doc };
  return doc;
}

test('a 20 MB insert is refused with BSONObjectTooLarge (10334) and no client ever sees it', async () => {
  const collection = shared.db.collection('big');
  const insert = { insert: 'big', $db: shared.db.databaseName };
  const asSequence = await rawCommand(insert, {
    name: 'documents',
    documents: [bsonWithString(1, 20 * MB)],
  });
  expect(asSequence).toMatchObject({ ok: 0, code: 10334, codeName: 'BSONObjectTooLarge' });
  expect(await collection.countDocuments()).toBe(0);
  await expect(collection.findOne({ _id: 1 as never })).resolves.toBeNull();
  await collection.insertOne({ _id: 2 as never, small: true });
  expect(await collection.find().toArray()).toEqual([{ _id: 2, small: true }]);
});

test('a document just above 16 MB is refused as too large, nothing inserted', async () => {
  const collection = shared.db.collection('just_above');
  const reply = await rawCommand(
    { insert: 'just_above', $db: shared.db.databaseName },
    { name: 'documents', documents: [bsonWithString(1, 16 * MB)] },
  );
  // mongod 7.0 answers BadValue in writeErrors; later versions may name BSONObjectTooLarge
  expect(reply).toMatchObject({ ok: 1, n: 0 });
  const [writeError] = reply.writeErrors as Array<{ code: number; errmsg: string }>;
  expect([2, 10334]).toContain(writeError.code);
  expect(writeError.errmsg).toMatch(/too large/);
  expect(await collection.countDocuments()).toBe(0);
});

test('an update whose result would pass 16 MB is refused and changes nothing', async () => {
  const collection = shared.db.collection<{ _id: number; s?: string; t?: string }>('grows');
  await collection.insertOne({ _id: 1, s: 'x'.repeat(9 * MB) });
  const error = await collection
    .updateOne({ _id: 1 }, { $set: { t: 'y'.repeat(8 * MB) } })
    .catch((caught: unknown) => caught);
  // mongod before 7.0: 17419; since: BSONObjectTooLarge
  expect([10334, 17419]).toContain((error as { code: number }).code);
  const stored = await collection.findOne({ _id: 1 });
  expect(stored?.t).toBeUndefined();
  expect(stored?.s).toHaveLength(9 * MB);
});

test('nesting: 180 levels are stored, 181 are Overflow (15), in inserts and updates', async () => {
  const collection = shared.db.collection('nesting');
  await collection.insertOne({ _id: 180 as never, ...nested(180) });
  expect(await collection.countDocuments({ _id: 180 as never })).toBe(1);
  await expect(collection.insertOne({ _id: 181 as never, ...nested(181) })).rejects.toMatchObject({
    code: 15,
  });
  // empty documents and arrays add no level
  await collection.insertOne({ _id: 'empty' as never, ...nested(180), e: {}, f: [] });
  await expect(
    collection.updateOne({ _id: 180 as never }, { $set: { b: nested(180) } }),
  ).rejects.toMatchObject({ code: 15 });
  await expect(collection.findOne({ _id: 180 as never })).resolves.not.toHaveProperty('b');
  await expect(collection.insertOne({ _id: 1000 as never, ...nested(1000) })).rejects.toMatchObject(
    { code: 15 },
  );
  expect(await collection.countDocuments()).toBe(2);
});
