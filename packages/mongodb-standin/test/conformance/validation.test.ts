/**
 * What mongod refuses whatever the data: it parses a filter, an update and a pipeline before it
 * reads a document, so an unknown query operator, update operator or pipeline stage is an error
 * on a missing collection, on one where nothing matches, and on one where something does. (0.3's
 * stand-in answered ok where nothing matched.) Runs unchanged against real MongoDB.
 */
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_validation');

/** A missing collection, one whose document does not match `{ a: 1 }`, and one whose does. */
async function collections() {
  const db = shared.db;
  await db.collection('nomatch').insertOne({ a: 2 });
  await db.collection('match').insertOne({ a: 1 });
  return ['missing', 'nomatch', 'match'].map((name) => db.collection(name));
}

const UNKNOWN_OPERATOR = { code: 2, message: expect.stringMatching(/^unknown operator: \$foo/) };
const UNKNOWN_TOP_LEVEL = {
  code: 2,
  message: expect.stringMatching(/^unknown top level operator: \$foo/),
};
const UNKNOWN_MODIFIER = { code: 9, message: expect.stringMatching(/^Unknown modifier: \$foo/) };
const UNKNOWN_STAGE = {
  code: 40324,
  message: expect.stringMatching(/^Unrecognized pipeline stage name: '\$foo'/),
};

test('an unknown query operator is BadValue (2) in find, count, distinct, delete and findAndModify', async () => {
  for (const collection of await collections()) {
    const filter = { a: { $foo: 1 } } as never;
    await expect(collection.find(filter).toArray()).rejects.toMatchObject(UNKNOWN_OPERATOR);
    await expect(collection.countDocuments(filter)).rejects.toMatchObject(UNKNOWN_OPERATOR);
    await expect(collection.distinct('a', filter)).rejects.toMatchObject(UNKNOWN_OPERATOR);
    await expect(collection.deleteOne(filter)).rejects.toMatchObject(UNKNOWN_OPERATOR);
    await expect(collection.findOneAndDelete(filter)).rejects.toMatchObject(UNKNOWN_OPERATOR);
    await expect(collection.find({ $foo: 1 } as never).toArray()).rejects.toMatchObject(
      UNKNOWN_TOP_LEVEL,
    );
  }
});

test('an unknown update operator is FailedToParse (9) in update and findAndModify', async () => {
  for (const collection of await collections()) {
    const update = { $foo: { a: 1 } } as never;
    await expect(collection.updateOne({ a: 1 }, update)).rejects.toMatchObject(UNKNOWN_MODIFIER);
    await expect(collection.updateMany({ a: 1 }, update)).rejects.toMatchObject(UNKNOWN_MODIFIER);
    await expect(collection.findOneAndUpdate({ a: 1 }, update)).rejects.toMatchObject(
      UNKNOWN_MODIFIER,
    );
  }
  await expect(shared.db.collection('match').findOne({ a: 1 })).resolves.toMatchObject({ a: 1 });
});

test('an unknown pipeline stage is 40324 in aggregate and in a pipeline-style update', async () => {
  for (const collection of await collections()) {
    await expect(
      collection.aggregate([{ $match: { a: 1 } }, { $foo: {} }]).toArray(),
    ).rejects.toMatchObject(UNKNOWN_STAGE);
    await expect(collection.updateOne({ a: 1 }, [{ $foo: {} }])).rejects.toMatchObject(
      UNKNOWN_STAGE,
    );
  }
});
