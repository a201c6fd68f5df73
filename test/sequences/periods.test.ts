/**
 * Periodic sequences against the database the harness picked (a real MongoDB included): the
 * period of an allocation is the database's, decided in the allocation's one command, and the
 * stored period only moves forward. The database's clock cannot be set here, so the counters are
 * put in a period before or after the clock's by hand; test/graphql/periods.test.ts moves the
 * clock itself across a midnight on a stand-in of its own.
 */
import { Long } from 'mongodb';
import { SequenceExhaustedError } from '../../src/sequences';
import { SequencesTestBed } from './fixture';

const bed = SequencesTestBed.forThisFile();

/** The keys of the period `zone`'s clock is in now and `slackMs` later. */
function periodsAround(zone: string, slackMs = 60_000): string[] {
  const key = (at: number) =>
    new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(at);
  return [key(Date.now() - slackMs), key(Date.now() + slackMs)];
}

test('an allocation is numbered in the database clock’s period, in one command', async () => {
  const db = bed.db();
  const sequences = bed.sequences(db);
  await sequences.create({
    name: 'receipt',
    format: 'R{YY}{MM}{DD}-{seq:4}',
    period: 'DAILY',
    timeZone: 'Pacific/Kiritimati',
  });
  const around = periodsAround('Pacific/Kiritimati');
  let answered: Awaited<ReturnType<typeof sequences.allocateExisting>> | undefined;
  const commands = await bed.commandsSent(db, async () => {
    answered = await sequences.allocateExisting({ name: 'receipt' }, 2);
  });
  expect(commands.map((event) => event.commandName)).toEqual(['findAndModify']);
  const { range, sequence } = answered!;
  expect(range).toMatchObject({ first: 1, last: 2, count: 2 });
  expect(around).toContain(sequence.currentPeriod);
  const [year, month, day] = sequence.currentPeriod!.split('-');
  expect(sequence.formattedValue).toBe(`R${year.slice(2)}${month}${day}-0002`);
});

test('a stored period before the clock’s restarts at start; one after it is continued', async () => {
  const db = bed.db();
  const sequences = bed.sequences(db);
  await sequences.create({ name: 'invoice', start: 1, period: 'YEARLY', format: '{YYYY}/{seq}' });
  const counters = db.collection('counters');
  await counters.updateOne(
    { _id: 'invoice' as never },
    { $set: { currentPeriod: '2001', seq: Long.fromNumber(41) } },
  );
  const restarted = await sequences.allocateExisting({ name: 'invoice' }, 1);
  expect(restarted.range!.first).toBe(1);
  expect(restarted.sequence.currentPeriod).not.toBe('2001');
  expect(periodsAround('UTC').map((key) => key.slice(0, 4))).toContain(
    restarted.sequence.currentPeriod,
  );

  // A period after the clock's (as if written by a primary whose clock ran ahead): kept, never
  // numbered back into the clock's year.
  await counters.updateOne(
    { _id: 'invoice' as never },
    { $set: { currentPeriod: '2999', seq: Long.fromNumber(7) } },
  );
  const continued = await sequences.allocateExisting({ name: 'invoice' }, 1);
  expect(continued.range!.first).toBe(8);
  expect(continued.sequence).toMatchObject({ currentPeriod: '2999', formattedValue: '2999/8' });
});

test('a full period refuses more values, and a new period has room again', async () => {
  const db = bed.db();
  const sequences = bed.sequences(db);
  const created = await sequences.create({ name: 'desk', format: 'D{seq:1}', period: 'MONTHLY' });
  expect(created.max).toBe(9);
  const counters = db.collection('counters');
  await counters.updateOne(
    { _id: 'desk' as never },
    { $set: { currentPeriod: '2999-01', seq: Long.fromNumber(9) } },
  );
  await expect(sequences.allocateExisting({ name: 'desk' }, 1)).rejects.toBeInstanceOf(
    SequenceExhaustedError,
  );
  expect(await counters.findOne({ _id: 'desk' as never })).toMatchObject({
    currentPeriod: '2999-01',
    seq: 9,
  });
  await counters.updateOne({ _id: 'desk' as never }, { $set: { currentPeriod: '2001-01' } });
  const next = await sequences.allocateExisting({ name: 'desk' }, 3);
  expect(next.range).toMatchObject({ first: 1, last: 3 });
});

test('a periodic sequence cannot be set; it is advanced in a period the clock has reached', async () => {
  const db = bed.db();
  const sequences = bed.sequences(db);
  await sequences.create({ name: 'ticket', period: 'YEARLY', format: 'T{YYYY}-{seq}' });
  await expect(sequences.setValue({ name: 'ticket' }, 5)).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'name',
  });
  await expect(sequences.advance({ name: 'ticket' }, 5)).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'period',
  });
  await expect(sequences.advance({ name: 'ticket' }, 5, {}, '2026-01')).rejects.toMatchObject({
    field: 'period',
  });
  // A year the database's clock has not reached would number this year's values in it.
  await expect(sequences.advance({ name: 'ticket' }, 5, {}, '2999')).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'period',
    message: expect.stringMatching(/has not begun/),
  });
  // An earlier year becomes the counter's, and the clock's year restarts after it.
  expect(await sequences.advance({ name: 'ticket' }, 416, {}, '2001')).toMatchObject({
    currentPeriod: '2001',
    value: 416,
    formattedValue: 'T2001-416',
  });
  // Idempotent, and never back.
  expect((await sequences.advance({ name: 'ticket' }, 400, {}, '2001')).value).toBe(416);
  const [year] = periodsAround('UTC').map((key) => key.slice(0, 4));
  expect(await sequences.advance({ name: 'ticket' }, 41, {}, year)).toMatchObject({
    currentPeriod: year,
    value: 41,
  });
  // An ended year is answered as it is: nothing is numbered in it again.
  expect(await sequences.advance({ name: 'ticket' }, 900, {}, '2001')).toMatchObject({
    currentPeriod: year,
    value: 41,
  });
  const next = await sequences.allocateExisting({ name: 'ticket' }, 1);
  expect(next.sequence).toMatchObject({ value: 42, formattedValue: `T${year}-42` });
  await expect(
    bed.sequences(db).advance({ name: 'plain-undefined' }, 3, {}, '2026'),
  ).rejects.toMatchObject({ field: 'period' });
});
