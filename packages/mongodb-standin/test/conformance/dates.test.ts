/**
 * `$dateToString` as the service uses it to decide a sequence's period by the database's clock:
 * local calendar fields in an Olson time zone (daylight saving time included), a fixed offset,
 * UTC, inside a pipeline-style update with `$$NOW`, and mongod's refusals of a time zone it does
 * not know and of a format character that does not exist.
 */
import { MongoServerError } from 'mongodb';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_dates');

const FULL = '%Y-%m-%d %H:%M:%S.%L';

async function rendered(date: Date, format: string, timezone?: string): Promise<unknown> {
  const coll = shared.db.collection('dates');
  await coll.deleteMany({});
  await coll.insertOne({ _id: 1 as never, at: date });
  const spec = timezone === undefined ? { date: '$at', format } : { date: '$at', format, timezone };
  await coll.updateOne({ _id: 1 as never }, [{ $set: { text: { $dateToString: spec } } }]);
  return (await coll.findOne({ _id: 1 as never }))?.text;
}

test('an instant becomes the local date and time of an Olson zone, on both sides of midnight', async () => {
  const before = new Date('2026-12-31T22:59:59.999Z');
  const after = new Date('2026-12-31T23:00:00.000Z');
  expect(await rendered(before, FULL, 'Europe/Berlin')).toBe('2026-12-31 23:59:59.999');
  expect(await rendered(after, FULL, 'Europe/Berlin')).toBe('2027-01-01 00:00:00.000');
  expect(await rendered(after, '%Y', 'Europe/Berlin')).toBe('2027');
  expect(await rendered(after, '%Y', 'UTC')).toBe('2026');
  // Summer time: Berlin is UTC+2 in July.
  expect(await rendered(new Date('2026-07-15T22:30:00Z'), '%Y-%m-%d', 'Europe/Berlin')).toBe(
    '2026-07-16',
  );
  expect(await rendered(after, '%Y-%m-%d', 'America/New_York')).toBe('2026-12-31');
});

test('fixed offsets, the default format, day of the year and a literal percent sign', async () => {
  const at = new Date('2026-02-01T23:30:00.005Z');
  expect(await rendered(at, '%H:%M', '+01:00')).toBe('00:30');
  expect(await rendered(at, '%H:%M', '-0530')).toBe('18:00');
  expect(await rendered(at, '%j %%')).toBe('032 %');
  const coll = shared.db.collection('dates');
  await coll.updateOne({ _id: 1 as never }, [
    { $set: { iso: { $dateToString: { date: '$at' } } } },
  ]);
  expect((await coll.findOne({ _id: 1 as never }))?.iso).toBe('2026-02-01T23:30:00.005Z');
});

test('$$NOW in a pipeline-style update is the server clock, one instant for the command', async () => {
  const coll = shared.db.collection('dates');
  await coll.deleteMany({});
  await coll.insertOne({ _id: 2 as never });
  const updated = await coll.findOneAndUpdate(
    { _id: 2 as never },
    [
      {
        $set: {
          year: { $dateToString: { date: '$$NOW', format: '%Y', timezone: 'Europe/Berlin' } },
          at: '$$NOW',
        },
      },
    ],
    { returnDocument: 'after' },
  );
  const at = updated?.at as Date;
  const berlinYear = new Intl.DateTimeFormat('en-US', {
    timeZone: 'Europe/Berlin',
    year: 'numeric',
  }).format(at);
  expect(updated?.year).toBe(berlinYear);
});

test('an unknown time zone is 40485 and an unknown format character 18536', async () => {
  const error = (await rendered(new Date(), '%Y', 'Mars/Olympus').catch((e: unknown) => e)) as
    MongoServerError | undefined;
  expect(error).toBeInstanceOf(MongoServerError);
  expect(error?.code).toBe(40485);
  const badFormat = (await rendered(new Date(), '%Q').catch((e: unknown) => e)) as MongoServerError;
  expect(badFormat.code).toBe(18536);
});
