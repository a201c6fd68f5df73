/**
 * The guarded `$inc`'s kept commands (src/sequences/guarded-increment.ts): a kept command is the
 * command its shape builds, never another shape's (every input of a shape changed alone gives its
 * own command, and the first shape's again after it), each command carries the time it is given,
 * and a session reaches the options without changing what is kept. Through the real driver, the
 * kept (frozen) parts are sent again and again by test/sequences/*.test.ts.
 */
import { Long, serialize } from 'bson';
import type { ClientSession, Document } from 'mongodb';
import { IMPLICIT_DEFINITION } from '../../src/sequences/definition';
import {
  GuardedIncrements,
  KEPT_SHAPES,
  type IncrementShape,
} from '../../src/sequences/guarded-increment';

const MAX_TIME_MS = 5_000;
const NOW = new Date('2026-01-01T00:00:00Z');

const userid: IncrementShape = {
  key: { id: 'userid', name: 'userid', scope: null, owner: null },
  definition: { ...IMPLICIT_DEFINITION },
  delta: 1,
  owner: undefined,
  upsert: true,
};

/** The command's bytes as the driver would send them (types included: Int64 stays Int64). */
const bytes = (command: unknown[]) => Buffer.from(serialize({ command })).toString('hex');

/** The command a fresh GuardedIncrements builds for a shape (nothing kept yet). */
const built = (shape: IncrementShape) =>
  bytes(new GuardedIncrements(MAX_TIME_MS).command(shape, NOW, undefined));

/** Each input of `userid`'s shape changed alone. */
const VARIANTS: Array<[string, IncrementShape]> = [
  ['another delta', { ...userid, delta: 7 }],
  ['an owner', { ...userid, owner: 'billing' }],
  ['no upsert', { ...userid, upsert: false }],
  ['another step', { ...userid, definition: { ...userid.definition, step: 2 } }],
  ['a max', { ...userid, definition: { ...userid.definition, max: 500 } }],
  ['another start', { ...userid, definition: { ...userid.definition, start: 10 } }],
  ['another name', { ...userid, key: { ...userid.key, name: 'orders' } }],
  ['a scope', { ...userid, key: { ...userid.key, scope: 'eu' } }],
  [
    'a period',
    {
      ...userid,
      definition: { ...userid.definition, period: 'YEARLY' as const, timeZone: 'Europe/Berlin' },
    },
  ],
];

test("the implicit counter's command: the guard, the $inc, the creation and the bound", () => {
  const [filter, update, options] = new GuardedIncrements(MAX_TIME_MS).command(
    userid,
    NOW,
    undefined,
  );
  expect(filter).toEqual({
    _id: 'userid',
    step: 1,
    max: { $exists: false },
    holdSeconds: { $exists: false },
    period: { $exists: false },
    start: {
      $type: 'long',
      $gte: Long.fromNumber(-Number.MAX_SAFE_INTEGER),
      $lte: Long.fromNumber(Number.MAX_SAFE_INTEGER),
    },
    seq: {
      $type: 'long',
      $gte: Long.fromNumber(-Number.MAX_SAFE_INTEGER),
      $lte: Long.fromNumber(Number.MAX_SAFE_INTEGER - 1),
    },
  });
  expect(update).toEqual({
    $inc: { seq: Long.fromNumber(1) },
    $set: { updatedAt: NOW },
    $setOnInsert: { name: 'userid', start: Long.fromNumber(1), step: 1 },
  });
  expect(options).toEqual({ upsert: true, returnDocument: 'after', maxTimeMS: MAX_TIME_MS });
});

test.each(VARIANTS)('%s: its own command, then the first shape its own again', (_what, other) => {
  const increments = new GuardedIncrements(MAX_TIME_MS);
  const first = bytes(increments.command(userid, NOW, undefined));
  expect(first).toBe(built(userid));
  const second = bytes(increments.command(other, NOW, undefined));
  expect(second).toBe(built(other));
  expect(second).not.toBe(first);
  expect(bytes(increments.command(userid, NOW, undefined))).toBe(first);
});

test('every command carries its own time, and a session only in its options', () => {
  const increments = new GuardedIncrements(MAX_TIME_MS);
  const later = new Date(NOW.getTime() + 1_000);
  const session = { id: 'a session' } as unknown as ClientSession;
  const [, first] = increments.command(userid, NOW, undefined);
  const [, second, withSession] = increments.command(userid, later, session);
  expect(first).toMatchObject({ $set: { updatedAt: NOW } });
  expect(second).toMatchObject({ $set: { updatedAt: later } });
  expect(withSession).toMatchObject({ session });
  const [, , withoutSession] = increments.command(userid, NOW, undefined);
  expect(withoutSession).not.toHaveProperty('session');
});

test('past KEPT_SHAPES counters, each still gets its own command', () => {
  const increments = new GuardedIncrements(MAX_TIME_MS);
  const shapes = Array.from({ length: KEPT_SHAPES * 2 + 3 }, (_, i) => ({
    ...userid,
    key: { ...userid.key, id: `counter-${i}`, name: `counter-${i}` },
    delta: (i % 5) + 1,
  }));
  for (const round of [1, 2]) {
    for (const shape of shapes) {
      expect([round, bytes(increments.command(shape, NOW, undefined))]).toEqual([
        round,
        built(shape),
      ]);
    }
  }
});

test('the kept parts cannot be changed by a caller', () => {
  const [filter, update] = new GuardedIncrements(MAX_TIME_MS).command(userid, NOW, undefined);
  expect(Object.isFrozen(filter)).toBe(true);
  expect(Object.isFrozen(filter.seq)).toBe(true);
  expect(Object.isFrozen((update as Document).$inc)).toBe(true);
  expect(Object.isFrozen((update as Document).$setOnInsert)).toBe(true);
});

test("a periodic sequence's command: the database's clock decides the period in the update", () => {
  const yearly = {
    ...userid,
    key: { id: 'invoice', name: 'invoice', scope: null, owner: null },
    definition: {
      ...IMPLICIT_DEFINITION,
      max: 999_999,
      period: 'YEARLY' as const,
      timeZone: 'Europe/Berlin',
    },
    delta: 3,
    upsert: false,
  };
  const [filter, update, options] = new GuardedIncrements(MAX_TIME_MS).command(
    yearly,
    NOW,
    undefined,
  );
  const periodNow = {
    $dateToString: { date: '$$NOW', format: '%Y', timezone: 'Europe/Berlin' },
  };
  const starts = { $gt: [periodNow, { $ifNull: ['$currentPeriod', ''] }] };
  expect(filter).toMatchObject({
    _id: 'invoice',
    period: 'YEARLY',
    timeZone: 'Europe/Berlin',
    max: Long.fromNumber(999_999),
    $expr: {
      $and: [
        { $or: [{ $lte: ['$seq', Long.fromNumber(999_996)] }, starts] },
        // A new period only once the last ended one is archived.
        { $or: [{ $not: [starts] }, { $eq: [{ $ifNull: ['$endedPeriod', null] }, null] }] },
      ],
    },
  });
  expect(update).toEqual([
    {
      $set: {
        currentPeriod: { $cond: [starts, periodNow, '$currentPeriod'] },
        endedPeriod: {
          $cond: [
            { $and: [starts, { $ne: [{ $ifNull: ['$currentPeriod', null] }, null] }] },
            { period: '$currentPeriod', value: '$seq' },
            '$endedPeriod',
          ],
        },
        seq: { $cond: [starts, Long.fromNumber(3), { $add: ['$seq', Long.fromNumber(3)] }] },
        updatedAt: '$$NOW',
      },
    },
  ]);
  expect(options).toEqual({ upsert: false, returnDocument: 'after', maxTimeMS: MAX_TIME_MS });
});
