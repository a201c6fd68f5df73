/**
 * Gapless sequences' reservations at the component, through the real driver:
 * - a value whose hold expired is still confirmed by its holder while nobody took it, also after
 *   other values of the sequence were handed out again and confirmed;
 * - holding and settling many values costs the same few commands per change however many are
 *   held, each naming one document by `_id` (counted from the driver's command events);
 * - holding 1,000 values in one allocation and settling them in one call costs a few commands in
 *   all, whatever else the sequence holds; released values come back first, and a batch the
 *   sequence cannot issue whole holds nothing;
 * - the waiting values a 0.4 counter kept in its `pending` array are moved into value documents,
 *   none lost.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Long } from 'mongodb';
import { SequencesTestBed } from './fixture';

const bed = SequencesTestBed.forThisFile();

test('a value past its hold is confirmed by its holder while nobody took it', async () => {
  const sequences = bed.sequences(bed.db());
  await sequences.create({ name: 'late', gapless: true, holdSeconds: 1 });
  const take = async () => (await sequences.allocateExisting({ name: 'late' }, 1)).reservations[0];
  const [one, two, three] = [await take(), await take(), await take()];
  expect([one.value, two.value, three.value]).toEqual([1, 2, 3]);
  await sleep(1_600);
  const again = await take();
  expect(again.value).toBe(1);
  expect((await sequences.reservations.confirm(again.id, {})).value).toBe(1);
  // 2 and 3 expired, but nobody took them: their holders still confirm them.
  expect((await sequences.reservations.confirm(two.id, {})).value).toBe(2);
  expect((await sequences.reservations.confirm(three.id, {})).value).toBe(3);
  await expect(sequences.reservations.confirm(one.id, {})).rejects.toMatchObject({
    code: 'RESERVATION_NOT_FOUND',
  });
  const state = await sequences.get({ name: 'late' });
  const gaps = await sequences.reservations.gaps(state!, { first: 10 });
  expect(gaps).toEqual({ runs: [], scannedThrough: 3, complete: true });
});

test('holding and settling 1,000 values costs the same commands per change, each by _id', async () => {
  const db = bed.db();
  const sequences = bed.sequences(db);
  await sequences.create({ name: 'many', gapless: true, holdSeconds: 600 });
  const held: string[] = [];
  const reserving = await bed.commandsSent(db, async () => {
    for (let i = 0; i < 1_000; i += 1) {
      held.push((await sequences.allocateExisting({ name: 'many' }, 1)).reservations[0].id);
    }
  });
  const confirming = await bed.commandsSent(db, async () => {
    for (const id of held) await sequences.reservations.confirm(id, {});
  });
  // The first allocation also creates the value documents' indexes, once per process.
  const reservingChanges = reserving.filter((event) => event.commandName !== 'createIndexes');
  expect(reserving.length - reservingChanges.length).toBe(1);
  expect(reservingChanges).toHaveLength(3 * 1_000);
  expect(confirming).toHaveLength(2 * 1_000);
  for (const event of [...reservingChanges, ...confirming]) {
    const { command } = event;
    const filter = command.filter ?? command.query ?? command.updates?.[0]?.q;
    const named = filter?._id?.$in ?? [filter?._id ?? command.documents?.[0]?._id];
    expect(named).toEqual([expect.any(String)]);
  }
  const state = await sequences.get({ name: 'many' });
  expect(state).toMatchObject({ value: 1_000, next: 1_001 });
  expect(await sequences.reservations.gaps(state!, { first: 10 })).toEqual({
    runs: [],
    scannedThrough: 1_000,
    complete: true,
  });
});

test('1,000 values held in one allocation and settled in one call: a few commands in all', async () => {
  const db = bed.db();
  const sequences = bed.sequences(db);
  await sequences.create({ name: 'batched', gapless: true, holdSeconds: 600, max: 2_002 });
  await sequences.allocateExisting({ name: 'batched' }, 1); // creates the indexes
  for (let round = 0; round < 2; round += 1) {
    let allocated: Awaited<ReturnType<typeof sequences.allocateExisting>> | undefined;
    const reserving = await bed.commandsSent(db, async () => {
      allocated = await sequences.allocateExisting({ name: 'batched' }, 1_000);
    });
    // Read the counter, insert the values, move the counter: as many in round 2 as in round 1.
    expect(reserving.map((event) => event.commandName)).toEqual([
      'find',
      'insert',
      'findAndModify',
    ]);
    const first = 2 + round * 1_000;
    expect(allocated!.range).toEqual({ first, last: first + 999, step: 1, count: 1_000 });
    expect(allocated!.reservations.map((held) => held.value)).toEqual(
      Array.from({ length: 1_000 }, (_, i) => first + i),
    );
    const ids = allocated!.reservations.map((held) => held.id);
    const confirming = await bed.commandsSent(db, async () => {
      const settled = await sequences.reservations.settleMany(ids, round === 1, {});
      expect(settled.every((outcome) => 'value' in outcome)).toBe(true);
    });
    // Read the counter, update the values (a release also tells the counter).
    expect(confirming.map((event) => event.commandName)).toEqual(
      round === 0 ? ['find', 'update'] : ['find', 'update', 'findAndModify'],
    );
  }
  // Round 2 released 1,002..2,001: handed out again, lowest first, before 2,002.., then new ones
  // up to the limit; a batch past it (997 free and 3 new, one above 2,002) holds nothing, its
  // free values go back.
  const again = await sequences.allocateExisting({ name: 'batched' }, 3);
  expect(again.reservations.map((held) => held.value)).toEqual([1_002, 1_003, 1_004]);
  await expect(sequences.allocateExisting({ name: 'batched' }, 1_000)).rejects.toMatchObject({
    code: 'SEQUENCE_EXHAUSTED',
  });
  const state = await sequences.get({ name: 'batched' });
  const gaps = await sequences.reservations.gaps(state!, { first: 10 });
  expect(gaps.runs).toEqual([
    { first: 1, last: 1, count: 1, kind: 'RESERVED' },
    { first: 1_002, last: 1_004, count: 3, kind: 'RESERVED' },
    { first: 1_005, last: 2_001, count: 997, kind: 'RELEASED' },
  ]);
  // 1,003 released again: the values held are not one range.
  await sequences.reservations.release(again.reservations[1].id, {});
  let mixed: Awaited<ReturnType<typeof sequences.allocateExisting>> | undefined;
  const taking = await bed.commandsSent(db, async () => {
    mixed = await sequences.allocateExisting({ name: 'batched' }, 998);
  });
  // The free values are found by expiry (only unconfirmed values are in that index), then taken
  // in one update.
  const [findFree] = taking.filter((event) => event.commandName === 'find').slice(1);
  expect(findFree.command).toMatchObject({ hint: 'sequence_expiresAt', limit: 998 });
  expect(taking.filter((event) => event.commandName === 'update')).toHaveLength(1);
  mixed = mixed!;
  expect(mixed.range).toBeNull();
  expect(mixed.reservations.map((held) => held.value)).toEqual([
    1_003,
    ...Array.from({ length: 997 }, (_, i) => 1_005 + i),
  ]);
});

test("a 0.4 counter's pending values are moved into value documents, none lost", async () => {
  const db = bed.db();
  const sequences = bed.sequences(db);
  await sequences.create({ name: 'old', gapless: true, holdSeconds: 60 });
  const later = new Date(Date.now() + 60_000);
  await db.collection<{ _id: string }>('counters').updateOne(
    { _id: 'old' },
    {
      $set: {
        seq: Long.fromNumber(3),
        rev: Long.fromNumber(7),
        pending: [
          { value: Long.fromNumber(1), token: 'AAAAAAAAAAAAAAAA', expiresAt: later },
          { value: Long.fromNumber(3), token: null, expiresAt: new Date(0) },
        ],
      },
    },
  );
  // 3 was released: handed out again first; 1 is still held by its token; 2 was confirmed.
  const reserved = (await sequences.allocateExisting({ name: 'old' }, 1)).reservations[0];
  expect(reserved.value).toBe(3);
  expect((await sequences.reservations.confirm('old:1:AAAAAAAAAAAAAAAA', {})).value).toBe(1);
  expect((await sequences.allocateExisting({ name: 'old' }, 1)).reservations[0].value).toBe(4);
  const counter = await db.collection('counters').findOne({ _id: 'old' as never });
  expect(counter).not.toHaveProperty('pending');
  expect(counter).not.toHaveProperty('rev');
});
