/**
 * TTL indexes, as mongod's TTL monitor applies them: every `ttlMonitorSleepSecs` (a parameter of
 * the whole server, so this file has a server of its own and puts the value back when done) it
 * deletes the documents whose indexed date, or earliest date in an array, is
 * `expireAfterSeconds` or more in the past; other values never expire, and a partial index only
 * deletes what its filter matches. The deletes are reported to change streams. createIndexes
 * refuses what mongod refuses. Runs unchanged against real MongoDB (which finishes the wait it
 * is in, up to a minute, before a new `ttlMonitorSleepSecs` applies: the waits allow for it).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChangeStreamDocument } from 'mongodb';
import { useConformanceServerOfItsOwn } from './fixture';

// declared before the fixture's hooks, so it runs while the fixture's client is still open
afterAll(async () => {
  await admin().command({ setParameter: 1, ttlMonitorSleepSecs: sleepBefore });
});

const shared = useConformanceServerOfItsOwn('conformance_ttl');

/** How long a test waits for a pass: a mongod may first finish a wait of 60 s. */
const PASS_WAIT_MS = 75_000;
const HOUR = 3_600_000;

let sleepBefore: number;

function admin() {
  return shared.client.db('admin');
}

beforeAll(async () => {
  const reply = await admin().command({ getParameter: 1, ttlMonitorSleepSecs: 1 });
  sleepBefore = reply.ttlMonitorSleepSecs as number;
  await expect(admin().command({ setParameter: 1, ttlMonitorSleepSecs: 1 })).resolves.toMatchObject(
    { was: sleepBefore, ok: 1 },
  );
});

/** Polls `done` every 100 ms until it holds or `ms` pass; says whether it held. */
async function eventually(done: () => Promise<boolean>, ms = PASS_WAIT_MS): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await done()) return true;
    await sleep(100);
  }
  return done();
}

function collection(name: string) {
  return shared.db.collection<{ _id: string; at?: unknown; kind?: string }>(name);
}

async function idsOf(name: string): Promise<string[]> {
  const docs = await collection(name).find().sort({ _id: 1 }).toArray();
  return docs.map((doc) => doc._id);
}

test(
  'expired dates are deleted; later dates, other values and missing fields stay',
  async () => {
    const sessions = collection('sessions');
    await sessions.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
    const past = new Date(Date.now() - 60_000);
    const later = new Date(Date.now() + HOUR);
    await sessions.insertMany([
      { _id: 'past', at: past },
      { _id: 'later', at: later },
      { _id: 'string', at: past.toISOString() },
      { _id: 'number', at: past.getTime() },
      { _id: 'missing' },
      { _id: 'array with a past date', at: [later, past] },
      { _id: 'array of later dates', at: [later] },
    ]);
    const gone = () =>
      sessions.countDocuments({ _id: { $in: ['past', 'array with a past date'] } });
    expect(await eventually(async () => (await gone()) === 0)).toBe(true);
    expect(await idsOf('sessions')).toEqual([
      'array of later dates',
      'later',
      'missing',
      'number',
      'string',
    ]);
    expect(await sessions.indexes()).toContainEqual(
      expect.objectContaining({ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 0 }),
    );
  },
  PASS_WAIT_MS + 15_000,
);

test(
  'expireAfterSeconds counts from the date; a partial index deletes only what its filter matches',
  async () => {
    const windows = collection('windows');
    await windows.createIndex(
      { at: 1 },
      { expireAfterSeconds: HOUR / 1000, partialFilterExpression: { kind: 'temporary' } },
    );
    const twoHoursAgo = new Date(Date.now() - 2 * HOUR);
    const halfAnHourAgo = new Date(Date.now() - HOUR / 2);
    await windows.insertMany([
      { _id: 'old', kind: 'temporary', at: twoHoursAgo },
      { _id: 'recent', kind: 'temporary', at: halfAnHourAgo },
      { _id: 'old but kept', kind: 'kept', at: twoHoursAgo },
    ]);
    expect(await eventually(async () => (await windows.countDocuments({ _id: 'old' })) === 0)).toBe(
      true,
    );
    expect(await idsOf('windows')).toEqual(['old but kept', 'recent']);
  },
  PASS_WAIT_MS + 15_000,
);

test(
  'a change stream reports what the TTL monitor deleted as a delete',
  async () => {
    const events = collection('events');
    await events.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
    const stream = events.watch();
    try {
      await stream.tryNext(); // the stream is open on the server before the insert
      await events.insertOne({ _id: 'expiring', at: new Date(Date.now() - 1_000) });
      const seen: ChangeStreamDocument[] = [];
      const deleted = await eventually(async () => {
        const next = await stream.tryNext();
        if (next) seen.push(next);
        return seen.some((event) => event.operationType === 'delete');
      });
      expect(deleted).toBe(true);
      expect(seen.map((event) => event.operationType)).toEqual(['insert', 'delete']);
      expect(seen[1]).toMatchObject({ documentKey: { _id: 'expiring' } });
    } finally {
      await stream.close();
    }
  },
  PASS_WAIT_MS + 15_000,
);

test('createIndexes refuses TTL options mongod refuses, with CannotCreateIndex (67)', async () => {
  const refused = collection('refused');
  await expect(
    refused.createIndex({ a: 1, b: 1 }, { expireAfterSeconds: 10 }),
  ).rejects.toMatchObject({ code: 67 });
  await expect(refused.createIndex({ a: 1 }, { expireAfterSeconds: -1 })).rejects.toMatchObject({
    code: 67,
  });
  await expect(
    refused.createIndex({ a: 1 }, { expireAfterSeconds: 'soon' as never }),
  ).rejects.toMatchObject({ code: 67 });
  await expect(
    refused.createIndex({ a: 1 }, { expireAfterSeconds: 2 ** 31 }),
  ).rejects.toMatchObject({ code: 67 });
  await refused.createIndex({ a: 1 }, { expireAfterSeconds: 10 });
  // the same index again is nothing new; another expiry under the same name conflicts
  await refused.createIndex({ a: 1 }, { expireAfterSeconds: 10 });
  await expect(refused.createIndex({ a: 1 }, { expireAfterSeconds: 20 })).rejects.toMatchObject({
    code: 85,
  });
});

test('ttlMonitorSleepSecs takes integers above 0, on admin only', async () => {
  await expect(admin().command({ setParameter: 1, ttlMonitorSleepSecs: 0 })).rejects.toMatchObject({
    code: 2,
  });
  await expect(
    shared.db.command({ setParameter: 1, ttlMonitorSleepSecs: 5 }),
  ).rejects.toMatchObject({ code: 13 });
  await expect(admin().command({ getParameter: 1, ttlMonitorSleepSecs: 1 })).resolves.toMatchObject(
    { ttlMonitorSleepSecs: 1 },
  );
});
