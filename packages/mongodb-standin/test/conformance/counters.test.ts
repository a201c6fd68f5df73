/**
 * The counter semantics the service relies on, identical on real MongoDB and the stand-in:
 * atomic upsert-$inc under real concurrency, numeric type promotion through $inc, and the
 * guarded allocation filter the sequences component sends (and mongod's refusal of $expr in upserts).
 */
import { Double, Int32, Long, MongoServerError } from 'mongodb';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_counters', { maxPoolSize: 50 });

test('2,000 concurrent upsert $inc with returnDocument after return 2,000 distinct values and end at 2,000', async () => {
  const counters = shared.db.collection<{ _id: string; seq: number }>('concurrent');
  const results = await Promise.all(
    Array.from({ length: 2_000 }, () =>
      counters
        .findOneAndUpdate(
          { _id: 'c' },
          { $inc: { seq: 1 } },
          { upsert: true, returnDocument: 'after' },
        )
        .catch(
          // Two upserts racing on a missing document: MongoDB may refuse one with E11000; retry it.
          (error: unknown) => {
            if (error instanceof MongoServerError && error.code === 11000) {
              return counters.findOneAndUpdate(
                { _id: 'c' },
                { $inc: { seq: 1 } },
                { upsert: true, returnDocument: 'after' },
              );
            }
            throw error;
          },
        ),
    ),
  );
  const values = results.map((doc) => doc!.seq);
  expect(new Set(values).size).toBe(2_000);
  expect(Math.min(...values)).toBe(1);
  expect(Math.max(...values)).toBe(2_000);
  expect((await counters.findOne({ _id: 'c' }))!.seq).toBe(2_000);
});

describe('$inc keeps MongoDB numeric types', () => {
  const raw = { promoteValues: false } as const;

  async function incremented(start: unknown, by: unknown): Promise<unknown> {
    const coll = shared.db.collection('types');
    const _id = `${Math.random()}`;
    await coll.insertOne({ _id: _id as never, n: start });
    await coll.updateOne({ _id: _id as never }, { $inc: { n: by as never } });
    return (await coll.findOne({ _id: _id as never }, raw))!.n;
  }

  test('Int64 plus Int32 stays Int64', async () => {
    expect(await incremented(Long.fromNumber(10), new Int32(5))).toEqual(Long.fromNumber(15));
  });

  test('Int32 plus Int32 past 2^31-1 becomes Int64', async () => {
    expect(await incremented(new Int32(2_147_483_647), new Int32(1))).toEqual(
      Long.fromNumber(2_147_483_648),
    );
  });

  test('Int32 plus Int32 within range stays Int32', async () => {
    expect(await incremented(new Int32(1), new Int32(2))).toEqual(new Int32(3));
  });

  test('anything plus a Double is a Double', async () => {
    expect(await incremented(Long.fromNumber(1), new Double(0.5))).toEqual(new Double(1.5));
  });

  test('$inc on a missing field sets the increment with its own type', async () => {
    const coll = shared.db.collection('types_missing');
    await coll.insertOne({ _id: 'm' as never });
    await coll.updateOne({ _id: 'm' as never }, { $inc: { n: Long.fromNumber(3) } });
    expect((await coll.findOne({ _id: 'm' as never }, raw))!.n).toEqual(Long.fromNumber(3));
  });

  test('$inc on a string is refused with TypeMismatch', async () => {
    const coll = shared.db.collection('types_string');
    await coll.insertOne({ _id: 's' as never, n: 'text' });
    const error = await coll
      .updateOne({ _id: 's' as never }, { $inc: { n: 1 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoServerError);
    expect((error as MongoServerError).code).toBe(14);
  });
});

describe('the guarded allocation the sequences component sends', () => {
  const guarded = () =>
    shared.db.collection<{ _id: string; seq: Long; step: number; name?: string }>('guarded');

  // The shape of src/sequences' allocation: the cached definition in the filter, a range guard
  // on `seq` (limit - d), and an upsert seeded from the equality fields only.
  function allocate(d: number, limit = 5) {
    return guarded().findOneAndUpdate(
      { _id: 'g', step: 1, max: { $exists: false }, seq: { $lte: Long.fromNumber(limit - d) } },
      { $inc: { seq: Long.fromNumber(d) }, $setOnInsert: { name: 'g' } },
      { upsert: true, returnDocument: 'after' },
    );
  }

  test('upserts from the equality fields, allocates within the limit, then refuses with E11000 on _id', async () => {
    expect(await allocate(3)).toEqual({ _id: 'g', step: 1, seq: 3, name: 'g' });
    expect((await allocate(2))!.seq).toBe(5);
    const error = await allocate(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoServerError);
    expect((error as MongoServerError).code).toBe(11000);
    expect((error as MongoServerError).keyPattern).toEqual({ _id: 1 });
    const stored = await shared.db.collection('guarded').findOne({ _id: 'g' as never });
    expect(stored!.seq).toBe(5);
  });

  test('an upsert whose query uses $expr is refused (QueryFeatureNotAllowed), matching or not', async () => {
    for (const _id of ['g', 'absent']) {
      const error = await guarded()
        .findOneAndUpdate(
          { _id, $expr: { $lte: ['$seq', 100] } },
          { $inc: { seq: Long.fromNumber(1) } },
          { upsert: true, returnDocument: 'after' },
        )
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MongoServerError);
      expect((error as MongoServerError).code).toBe(224);
    }
    expect(await guarded().countDocuments({ _id: 'absent' })).toBe(0);
  });
});

test('$max raises and never lowers, comparing numbers across types', async () => {
  const coll = shared.db.collection('max');
  await coll.insertOne({ _id: 'x' as never, seq: Long.fromNumber(10) });
  await coll.updateOne({ _id: 'x' as never }, { $max: { seq: 7 } });
  expect((await coll.findOne({ _id: 'x' as never }))!.seq).toBe(10);
  await coll.updateOne({ _id: 'x' as never }, { $max: { seq: Long.fromNumber(12) } });
  expect((await coll.findOne({ _id: 'x' as never }))!.seq).toBe(12);
});
