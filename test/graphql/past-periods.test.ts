/**
 * A periodic sequence's ended periods stay readable (`Sequence.pastPeriods`), through the real
 * HTTP server and driver on a stand-in whose clock the test sets (as test/graphql/periods.test.ts
 * does: the period is the database's clock alone):
 * - monthly invoices over four months, from two service instances: each ended month answers the
 *   last value issued in it, formatted in that month, oldest first, a bounded page at a time;
 * - a change of period that a crash interrupted before the ended period was copied (the counter
 *   still holds it): the next period does not begin until it is copied, so no period is lost;
 * - `advanceSequence` into a later period keeps the ended one too; bad pages are refused;
 *   sequences without a period, and gapless ones, answer null.
 */
import { clockedServicesBed } from '../support/clocked-services';
import type { TestService } from '../support/service';

const ERROR = 'error { code field message }';
const DEFINE = `mutation ($input: CreateSequenceInput!) {
  createSequence(input: $input) { sequence { id } ${ERROR} }
}`;
const ALLOCATE = `mutation ($name: String!, $count: Int) {
  allocateSequence(name: $name, count: $count) { range { first last period } ${ERROR} }
}`;
const PAST = `query ($name: String!, $after: String, $first: Int) {
  sequence(name: $name) {
    currentPeriod value
    pastPeriods(after: $after, first: $first) { periods { period value formattedValue } hasMore }
  }
}`;

let now = Date.parse('2026-01-15T10:00:00Z');
const instances = clockedServicesBed(() => now);

async function define(input: object) {
  const answer = await instances.first.graphql(DEFINE, { input });
  expect(answer.body.errors).toBeUndefined();
  expect(answer.body.data.createSequence.error).toBeNull();
}

async function allocate(name: string, count: number, service: TestService) {
  const answer = await service.graphql(ALLOCATE, { name, count });
  expect(answer.body.errors).toBeUndefined();
  expect(answer.body.data.allocateSequence.error).toBeNull();
  return answer.body.data.allocateSequence.range;
}

async function past(name: string, page: { after?: string; first?: number } = {}) {
  const answer = await instances.first.graphql(PAST, { name, ...page });
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data.sequence;
}

test('each ended month answers its last value, formatted in that month, a page at a time', async () => {
  now = Date.parse('2026-01-15T10:00:00Z');
  await define({ name: 'invoice', format: 'INV-{YYYY}{MM}-{seq:4}', period: 'MONTHLY' });
  const months = ['2026-01', '2026-02', '2026-03', '2026-04'];
  const issued = [7, 3, 12, 5];
  for (const [index, month] of months.entries()) {
    now = Date.parse(`${month}-10T12:00:00Z`);
    // Both instances allocate in each month, at once.
    const half = Math.floor(issued[index] / 2);
    const ranges = await Promise.all([
      allocate('invoice', half, instances.first),
      allocate('invoice', issued[index] - half, instances.second),
    ]);
    for (const range of ranges) expect(range.period).toBe(month);
  }
  const read = await past('invoice');
  expect(read.currentPeriod).toBe('2026-04');
  expect(read.value).toBe(5);
  expect(read.pastPeriods).toEqual({
    periods: [
      { period: '2026-01', value: 7, formattedValue: 'INV-202601-0007' },
      { period: '2026-02', value: 3, formattedValue: 'INV-202602-0003' },
      { period: '2026-03', value: 12, formattedValue: 'INV-202603-0012' },
    ],
    hasMore: false,
  });

  const page1 = await past('invoice', { first: 2 });
  expect(page1.pastPeriods.periods.map((entry: { period: string }) => entry.period)).toEqual([
    '2026-01',
    '2026-02',
  ]);
  expect(page1.pastPeriods.hasMore).toBe(true);
  const page2 = await past('invoice', { first: 2, after: '2026-02' });
  expect(page2.pastPeriods).toEqual({
    periods: [{ period: '2026-03', value: 12, formattedValue: 'INV-202603-0012' }],
    hasMore: false,
  });
});

test('a change of period interrupted before its copy: the next period waits for the copy', async () => {
  now = Date.parse('2026-05-10T12:00:00Z');
  await define({ name: 'ticket', period: 'MONTHLY' });
  await allocate('ticket', 4, instances.first);
  // As if an instance died between the change of period and the copy: June began, May's last
  // value is still held by the counter, never copied.
  const counters = instances.first.client.db(instances.first.dbName).collection('counters');
  const stored = await counters.findOne({ _id: 'anonymous~ticket' as never });
  expect(stored).not.toBeNull();
  await counters.updateOne({ _id: 'anonymous~ticket' as never }, [
    {
      $set: {
        endedPeriod: { period: '2026-05', value: '$seq' },
        currentPeriod: '2026-06',
        seq: { $add: ['$start', -1, 9] },
      },
    },
  ]);
  // July begins with May still uncopied: the allocation copies it before June can end.
  now = Date.parse('2026-07-02T12:00:00Z');
  const july = await allocate('ticket', 1, instances.second);
  expect(july).toMatchObject({ first: 1, period: '2026-07' });
  expect((await past('ticket')).pastPeriods.periods).toEqual([
    { period: '2026-05', value: 4, formattedValue: null },
    { period: '2026-06', value: 9, formattedValue: null },
  ]);
});

test('advanceSequence into a later period keeps the ended one; bad pages; other sequences', async () => {
  now = Date.parse('2026-08-10T12:00:00Z');
  await define({ name: 'order', period: 'YEARLY', format: 'O{YY}-{seq}' });
  await allocate('order', 3, instances.first);
  now = Date.parse('2027-01-05T12:00:00Z');
  const advanced = await instances.first.graphql(
    `mutation { advanceSequence(name: "order", to: 100, period: "2027") { sequence { currentPeriod value } ${ERROR} } }`,
  );
  expect(advanced.body.data.advanceSequence).toEqual({
    sequence: { currentPeriod: '2027', value: 100 },
    error: null,
  });
  expect((await past('order')).pastPeriods.periods).toEqual([
    { period: '2026', value: 3, formattedValue: 'O26-3' },
  ]);

  for (const page of [{ first: 0 }, { first: 101 }, { after: 'last year' }]) {
    const answer = await instances.first.graphql(PAST, { name: 'order', ...page });
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  }

  await define({ name: 'plain' });
  await define({ name: 'receipts', gapless: true, period: 'YEARLY' });
  expect((await past('plain')).pastPeriods).toBeNull();
  expect((await past('receipts')).pastPeriods).toBeNull();
});
