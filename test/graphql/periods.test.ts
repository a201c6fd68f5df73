/**
 * Formatted, yearly numbers through the real HTTP server, with the database's clock set by the
 * test: a stand-in of this file's own, started with its `clock` option (mongod has no such
 * setting, so this file runs on the stand-in whatever database the harness picked; the command
 * the service sends is the same on both, and test/sequences/periods.test.ts runs it on the
 * harness's). The service's own clock is the test process's, weeks before the database's here:
 * the period is the database's alone.
 */
import { clockedServicesBed } from '../support/clocked-services';
import { ADMIN_HEADERS } from '../support/service';

const ERROR = 'error { code field message }';
const DEFINE = `mutation ($input: CreateSequenceInput!) {
  createSequence(input: $input) {
    sequence { format period timeZone currentPeriod formattedValue max next } ${ERROR}
  }
}`;
const ALLOCATE = `mutation ($name: String!, $count: Int) {
  allocateSequence(name: $name, count: $count) {
    range { first last period formatted }
    sequence { value currentPeriod formattedValue }
    ${ERROR}
  }
}`;
const READ = `query ($name: String!) {
  sequence(name: $name) { value currentPeriod formattedValue format period timeZone }
}`;

let now = Date.parse('2026-06-01T10:00:00Z');
const instances = clockedServicesBed(() => now);

async function define(input: object) {
  const answer = await instances.first.graphql(DEFINE, { input });
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data.createSequence;
}

async function allocate(name: string, count = 1, service = instances.first) {
  const answer = await service.graphql(ALLOCATE, { name, count });
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data.allocateSequence;
}

test('INV-{YYYY}-{seq:6} yearly in Europe/Berlin: the last millisecond of 2026 and the first of 2027', async () => {
  now = Date.parse('2026-06-01T10:00:00Z');
  const defined = await define({
    name: 'invoice',
    format: 'INV-{YYYY}-{seq:6}',
    period: 'YEARLY',
    timeZone: 'Europe/Berlin',
  });
  expect(defined).toEqual({
    sequence: {
      format: 'INV-{YYYY}-{seq:6}',
      period: 'YEARLY',
      timeZone: 'Europe/Berlin',
      currentPeriod: null,
      formattedValue: null,
      max: 999999,
      next: 1,
    },
    error: null,
  });
  expect((await allocate('invoice')).range).toEqual({
    first: 1,
    last: 1,
    period: '2026',
    formatted: ['INV-2026-000001'],
  });
  expect((await allocate('invoice', 2, instances.second)).range.formatted).toEqual([
    'INV-2026-000002',
    'INV-2026-000003',
  ]);

  now = Date.parse('2026-12-31T22:59:59.999Z');
  const last2026 = await allocate('invoice');
  expect(last2026.range.formatted).toEqual(['INV-2026-000004']);
  expect(last2026.sequence).toEqual({
    value: 4,
    currentPeriod: '2026',
    formattedValue: 'INV-2026-000004',
  });

  now = Date.parse('2026-12-31T23:00:00.000Z');
  const first2027 = await allocate('invoice', 1, instances.second);
  expect(first2027.range).toEqual({
    first: 1,
    last: 1,
    period: '2027',
    formatted: ['INV-2027-000001'],
  });

  // The database's clock going back (a new primary whose clock lags) never numbers into 2026
  // again: the period only moves forward.
  now = Date.parse('2026-12-31T22:59:58.000Z');
  expect((await allocate('invoice')).range.formatted).toEqual(['INV-2027-000002']);
  const read = await instances.first.graphql(READ, { name: 'invoice' });
  expect(read.body.data.sequence).toEqual({
    value: 2,
    currentPeriod: '2027',
    formattedValue: 'INV-2027-000002',
    format: 'INV-{YYYY}-{seq:6}',
    period: 'YEARLY',
    timeZone: 'Europe/Berlin',
  });
});

test('an allocation of more than 1,000 values answers numbers only', async () => {
  now = Date.parse('2026-06-01T10:00:00Z');
  await define({ name: 'bulk', format: 'B-{seq:6}', period: 'MONTHLY' });
  expect((await allocate('bulk', 1_000)).range.formatted).toHaveLength(1_000);
  const bulk = await allocate('bulk', 1_001);
  expect(bulk.range).toEqual({ first: 1_001, last: 2_001, period: '2026-06', formatted: null });
  expect(bulk.sequence.formattedValue).toBe('B-002001');
});

test('bad formats, zones and periods are refused with BAD_USER_INPUT naming the field', async () => {
  const refused = async (input: object) => (await define(input)).error;
  expect(await refused({ name: 'a1', format: 'INV-{YYYY}' })).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'format',
  });
  expect(await refused({ name: 'a2', format: '{seq:3}', max: 5000 })).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'format',
    message: expect.stringMatching(/at most 999/),
  });
  expect(
    await refused({ name: 'a3', format: '{seq}', period: 'YEARLY', timeZone: 'Europe/Berlinn' }),
  ).toMatchObject({ code: 'BAD_USER_INPUT', field: 'timeZone' });
  expect(await refused({ name: 'a4', timeZone: 'UTC' })).toMatchObject({ field: 'timeZone' });
  // A definition never changes, its format included: a number once issued is always written so.
  await define({ name: 'fixed', format: 'F-{seq:4}' });
  expect(await refused({ name: 'fixed', format: 'G-{seq:4}' })).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'format',
  });
  expect((await define({ name: 'fixed', format: 'F-{seq:4}' })).error).toBeNull();
  // `userid` feeds user ids: its definition is fixed.
  const userid = await instances.first.graphql(
    DEFINE,
    { input: { name: 'userid', format: 'C{seq:8}' } },
    ADMIN_HEADERS,
  );
  expect(userid.body.data.createSequence.error).toMatchObject({ code: 'BAD_USER_INPUT' });
});

const RESERVE = `mutation ($name: String!) {
  allocateSequence(name: $name) {
    range { period formatted } reservation { id value period formatted } ${ERROR}
  }
}`;
const SETTLE = (action: string) => `mutation ($id: ID!) { ${action}(id: $id) { value ${ERROR} } }`;
const GAPS = `query ($name: String!, $period: String) {
  sequence(name: $name) {
    currentPeriod gaps(period: $period) { runs { first last kind } complete }
  }
}`;

test('a gapless yearly sequence: each year numbers from 1, and an ended year’s released value is handed out again in that year', async () => {
  now = Date.parse('2026-12-31T22:59:00.000Z');
  await define({
    name: 'receipt',
    gapless: true,
    holdSeconds: 600,
    format: 'R{YY}-{seq:4}',
    period: 'YEARLY',
    timeZone: 'Europe/Berlin',
  });
  const reserve = async () => {
    const answer = await instances.first.graphql(RESERVE, { name: 'receipt' });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.allocateSequence.error).toBeNull();
    return answer.body.data.allocateSequence;
  };
  const settle = async (action: string, id: string) => {
    const answer = await instances.second.graphql(SETTLE(action), { id });
    expect(answer.body.data[action].error).toBeNull();
  };
  const held = [await reserve(), await reserve(), await reserve()];
  expect(held.map((a) => a.reservation)).toEqual([
    expect.objectContaining({ value: 1, period: '2026', formatted: 'R26-0001' }),
    expect.objectContaining({ value: 2, period: '2026', formatted: 'R26-0002' }),
    expect.objectContaining({ value: 3, period: '2026', formatted: 'R26-0003' }),
  ]);
  expect(held[0].range).toEqual({ period: '2026', formatted: ['R26-0001'] });
  await settle('confirmReservation', held[0].reservation.id);
  await settle('releaseReservation', held[1].reservation.id);

  now = Date.parse('2026-12-31T23:00:00.000Z');
  // The released 2026 value first, still numbered in 2026; then 2027 from 1.
  const refilled = await reserve();
  expect(refilled.reservation).toMatchObject({ value: 2, period: '2026', formatted: 'R26-0002' });
  const first2027 = await reserve();
  expect(first2027.reservation).toMatchObject({ value: 1, period: '2027', formatted: 'R27-0001' });
  const gaps2026 = await instances.first.graphql(GAPS, { name: 'receipt', period: '2026' });
  expect(gaps2026.body.data.sequence).toEqual({
    currentPeriod: '2027',
    gaps: { runs: [{ first: 2, last: 3, kind: 'RESERVED' }], complete: true },
  });
  for (const answer of [refilled, held[2], first2027]) {
    await settle('confirmReservation', answer.reservation.id);
  }
  for (const period of ['2026', '2027', null]) {
    const gaps = await instances.first.graphql(GAPS, { name: 'receipt', period });
    expect(gaps.body.data.sequence.gaps).toEqual({ runs: [], complete: true });
  }
  const wrongKind = await instances.first.graphql(GAPS, { name: 'receipt', period: '2026-12' });
  expect(wrongKind.body.errors?.[0]?.extensions).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'period',
  });
});

const PREVIEW = '{ next formattedNext currentPeriod }';

test('before its first allocation, formattedNext is what the first allocation answers, in the database clock’s period', async () => {
  // In Berlin and Tokyo the database's clock is in 2028 already; in UTC it is not, and the test
  // process's own clock (the services') is in another year altogether.
  now = Date.parse('2027-12-31T23:30:00.000Z');
  const defined = await instances.first.graphql(
    `mutation ($input: CreateSequenceInput!) {
      createSequence(input: $input) { sequence ${PREVIEW} ${ERROR} }
    }`,
    {
      input: {
        name: 'invoice-preview',
        format: 'INV-{YYYY}-{seq:6}',
        period: 'YEARLY',
        timeZone: 'Europe/Berlin',
      },
    },
  );
  expect(defined.body.data.createSequence).toEqual({
    sequence: { next: 1, formattedNext: 'INV-2028-000001', currentPeriod: null },
    error: null,
  });
  // Read on the other instance, alone and in the list.
  const read = await instances.second.graphql(
    `query ($name: String!) {
      sequence(name: $name) ${PREVIEW}
      sequences(first: 100) { edges { node { name formattedNext } } }
    }`,
    { name: 'invoice-preview' },
  );
  expect(read.body.errors).toBeUndefined();
  expect(read.body.data.sequence).toEqual({
    next: 1,
    formattedNext: 'INV-2028-000001',
    currentPeriod: null,
  });
  expect(read.body.data.sequences.edges.map((edge: { node: object }) => edge.node)).toContainEqual({
    name: 'invoice-preview',
    formattedNext: 'INV-2028-000001',
  });
  const allocated = await instances.first.graphql(
    `mutation ($name: String!) {
      allocateSequence(name: $name) { range { formatted } sequence ${PREVIEW} ${ERROR} }
    }`,
    { name: 'invoice-preview' },
  );
  expect(allocated.body.data.allocateSequence).toEqual({
    range: { formatted: ['INV-2028-000001'] },
    sequence: { next: 2, formattedNext: 'INV-2028-000002', currentPeriod: '2028' },
    error: null,
  });

  // A gapless monthly one alike: its first reservation is the number formattedNext showed.
  const gapless = await define({
    name: 'receipt-preview',
    gapless: true,
    format: 'R{YYYY}{MM}-{seq:4}',
    period: 'MONTHLY',
    timeZone: 'Asia/Tokyo',
  });
  expect(gapless.error).toBeNull();
  const before = await instances.second.graphql(
    `query ($name: String!) { sequence(name: $name) ${PREVIEW} }`,
    {
      name: 'receipt-preview',
    },
  );
  expect(before.body.data.sequence).toEqual({
    next: 1,
    formattedNext: 'R202801-0001',
    currentPeriod: null,
  });
  const reserved = await instances.first.graphql(RESERVE, { name: 'receipt-preview' });
  expect(reserved.body.data.allocateSequence.reservation).toMatchObject({
    value: 1,
    period: '2028-01',
    formatted: 'R202801-0001',
  });
});
