/**
 * Holding and settling many values of a gapless sequence per request, through the real HTTP server
 * on two service instances over one database:
 * - `allocateSequence` with `count` holds that many values, one reservation each (formatted as the
 *   sequence's format says), released values first;
 * - `confirmReservations` / `releaseReservations` settle each id on its own: a malformed id, another
 *   owner's or one whose value went to another holder is refused alone while the rest settle; a
 *   repeated batch answers the same and changes nothing; an id repeated within one batch (or
 *   naming the same reservation otherwise) is settled and counted once, each repeat refused alone
 *   as BAD_USER_INPUT; a value past its hold mid-batch is confirmed while nobody took it;
 * - two clients confirming and releasing overlapping batches at once, on two instances: each value
 *   ends up confirmed or released by exactly one of them, and once the released ones are handed
 *   out again and confirmed the confirmed values are exactly 1..N;
 * - more than 1,000 ids, or a `count` above 1,000, are refused whole, nothing held or settled.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { TEST_CLIENT, twoInstancesOnOneDatabase, type TestService } from '../support/service';

const CLIENT = { authorization: `Bearer ${TEST_CLIENT.token}` };
const ERROR = 'error { code field message }';
const DEFINE = `mutation Define($input: CreateSequenceInput!) {
  createSequence(input: $input) { sequence { id } ${ERROR} }
}`;
const ALLOCATE = `mutation Allocate($name: String!, $count: Int) {
  allocateSequence(name: $name, count: $count) {
    range { first last count } reservation { id value }
    reservations { id value formatted expiresAt } ${ERROR}
  }
}`;
const SETTLE = (
  field: 'confirmReservations' | 'releaseReservations',
) => `mutation Settle($ids: [ID!]!) {
  ${field}(ids: $ids) {
    results { index value sequence { value } error { code field } } settled failed ${ERROR}
  }
}`;
const CONFIRM = SETTLE('confirmReservations');
const RELEASE = SETTLE('releaseReservations');
const GAPS = `query Gaps($name: String!) {
  sequence(name: $name) { value gaps(first: 100) { runs { first last count kind } complete } }
}`;

interface Result {
  index: number;
  value: number | null;
  error: { code: string; field: string | null } | null;
}
interface Settled {
  results: Result[];
  settled: number;
  failed: number;
  error: { code: string; field: string | null } | null;
}
interface Held {
  id: string;
  value: number;
  formatted: string | null;
}

const instances = twoInstancesOnOneDatabase();

async function define(input: object) {
  const defined = await instances.first.graphql(DEFINE, { input }, CLIENT);
  expect(defined.body.data.createSequence.error).toBeNull();
}

async function allocate(
  name: string,
  count: number,
  via: TestService = instances.first,
): Promise<Held[]> {
  const answer = await via.graphql(ALLOCATE, { name, count }, CLIENT);
  expect(answer.body.errors).toBeUndefined();
  const allocated = answer.body.data.allocateSequence;
  expect(allocated.error).toBeNull();
  expect(allocated.reservations).toHaveLength(count);
  expect(allocated.reservation).toEqual({
    id: allocated.reservations[0].id,
    value: allocated.reservations[0].value,
  });
  return allocated.reservations;
}

async function settle(
  query: string,
  ids: string[],
  via: TestService = instances.first,
  headers: Record<string, string> = CLIENT,
): Promise<Settled> {
  const answer = await via.graphql(query, { ids }, headers);
  expect(answer.body.errors).toBeUndefined();
  return Object.values(answer.body.data)[0] as Settled;
}

const gapsOf = async (name: string) =>
  (await instances.first.graphql(GAPS, { name }, CLIENT)).body.data.sequence;

test('a batch held in one request, formatted, confirmed in one request; a repeat changes nothing', async () => {
  await define({ name: 'batch-receipt', gapless: true, holdSeconds: 60, format: 'R-{seq:4}' });
  const held = await allocate('batch-receipt', 5);
  expect(held.map((h) => [h.value, h.formatted])).toEqual([
    [1, 'R-0001'],
    [2, 'R-0002'],
    [3, 'R-0003'],
    [4, 'R-0004'],
    [5, 'R-0005'],
  ]);
  const ids = held.map((h) => h.id);
  const confirmed = await settle(CONFIRM, ids);
  expect(confirmed).toMatchObject({ settled: 5, failed: 0, error: null });
  expect(confirmed.results.map((r) => [r.index, r.value, r.error])).toEqual(
    held.map((h, i) => [i, h.value, null]),
  );
  // A retried batch (its answer lost): the same answer, on either instance, nothing changed.
  const before = await gapsOf('batch-receipt');
  expect(await settle(CONFIRM, ids, instances.second)).toEqual(confirmed);
  expect(await gapsOf('batch-receipt')).toEqual(before);
  expect(before).toEqual({ value: 5, gaps: { runs: [], complete: true } });
  // Confirmed values cannot be released: each refused, nothing changed.
  const released = await settle(RELEASE, ids);
  expect(released).toMatchObject({ settled: 0, failed: 5 });
  expect(released.results.every((r) => r.error?.code === 'RESERVATION_NOT_FOUND')).toBe(true);
  expect(await gapsOf('batch-receipt')).toEqual(before);
});

test('a refused item is refused alone: malformed, another owner, a value handed out again', async () => {
  await define({ name: 'batch-mixed', gapless: true, holdSeconds: 1 });
  const first = await allocate('batch-mixed', 4);
  await sleep(1_200);
  // Past their hold: the next allocation (on the other instance) takes 1 and 2 back.
  const retaken = await allocate('batch-mixed', 2, instances.second);
  expect(retaken.map((h) => h.value)).toEqual([1, 2]);
  const ids = ['not-a-reservation', ...first.map((h) => h.id)];
  const answer = await settle(CONFIRM, ids);
  expect(answer.results.map((r) => [r.index, r.value, r.error?.code ?? null])).toEqual([
    [0, null, 'BAD_USER_INPUT'],
    [1, null, 'RESERVATION_NOT_FOUND'],
    [2, null, 'RESERVATION_NOT_FOUND'],
    // 3 and 4 are past their hold, and nobody took them: still confirmed by their holder.
    [3, 3, null],
    [4, 4, null],
  ]);
  expect(answer).toMatchObject({ settled: 2, failed: 3, error: null });
  // Another owner (the open-access client) names no sequence of its own: refused, nothing changed.
  const foreign = await settle(
    CONFIRM,
    retaken.map((h) => h.id),
    instances.first,
    {},
  );
  expect(foreign.results.map((r) => r.error?.code)).toEqual([
    'SEQUENCE_NOT_FOUND',
    'SEQUENCE_NOT_FOUND',
  ]);
  expect((await settle(CONFIRM, [retaken[1].id, retaken[0].id])).results).toEqual([
    { index: 0, value: 2, sequence: { value: 4 }, error: null },
    { index: 1, value: 1, sequence: { value: 4 }, error: null },
  ]);
  expect((await gapsOf('batch-mixed')).gaps).toEqual({ runs: [], complete: true });
});

test('an id repeated in one batch is settled and counted once; each repeat is refused alone', async () => {
  await define({ name: 'batch-repeat', gapless: true, holdSeconds: 60 });
  const [a, b, c] = (await allocate('batch-repeat', 3)).map((h) => h.id);
  // The same reservation written another way (its value with a leading zero) is a repeat too.
  const [sequenceId, value, token] = a.split(':');
  const aAgain = `${sequenceId}:0${value}:${token}`;
  const ids = [a, b, a, aAgain, c, b];
  const confirmed = await settle(CONFIRM, ids);
  expect(confirmed.results.map((r) => [r.index, r.value, r.error?.code ?? null])).toEqual([
    [0, 1, null],
    [1, 2, null],
    [2, null, 'BAD_USER_INPUT'],
    [3, null, 'BAD_USER_INPUT'],
    [4, 3, null],
    [5, null, 'BAD_USER_INPUT'],
  ]);
  expect(confirmed).toMatchObject({ settled: 3, failed: 3, error: null });
  const repeat = await instances.first.graphql(
    `mutation ($ids: [ID!]!) { confirmReservations(ids: $ids) { results { ${ERROR} } } }`,
    { ids: [c, c] },
    CLIENT,
  );
  expect(repeat.body.data.confirmReservations.results[1].error).toEqual({
    code: 'BAD_USER_INPUT',
    field: 'id',
    message: expect.stringMatching(/same reservation as ids\[0\].*once per call/),
  });
  // The batch retried (its answer lost): the same answer, nothing changed.
  expect(await settle(CONFIRM, ids, instances.second)).toEqual(confirmed);
  expect(await gapsOf('batch-repeat')).toEqual({ value: 3, gaps: { runs: [], complete: true } });

  // A release repeated in one batch gives its value back once: the next allocation hands each
  // released value out once, then a new one.
  const [d, e] = (await allocate('batch-repeat', 2)).map((h) => h.id);
  const released = await settle(RELEASE, [d, e, d]);
  expect(released.results.map((r) => [r.value, r.error?.code ?? null])).toEqual([
    [4, null],
    [5, null],
    [null, 'BAD_USER_INPUT'],
  ]);
  expect(released).toMatchObject({ settled: 2, failed: 1 });
  const again = await allocate('batch-repeat', 3, instances.second);
  expect(again.map((h) => h.value)).toEqual([4, 5, 6]);
  expect(
    await settle(
      CONFIRM,
      again.map((h) => h.id),
    ),
  ).toMatchObject({ settled: 3, failed: 0 });
  expect(await gapsOf('batch-repeat')).toEqual({ value: 6, gaps: { runs: [], complete: true } });
});

test('two clients confirming and releasing overlapping batches at once: each value settled once', async () => {
  await define({ name: 'batch-race', gapless: true, holdSeconds: 60 });
  const confirmedValues: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    const held = await allocate(
      'batch-race',
      100,
      round % 2 === 0 ? instances.first : instances.second,
    );
    const ids = held.map((h) => h.id);
    // The first confirms 0..69, the second releases 30..99, at once on two instances.
    const [confirming, releasing] = await Promise.all([
      settle(CONFIRM, ids.slice(0, 70), instances.first),
      settle(RELEASE, ids.slice(30), instances.second),
    ]);
    const confirmed = confirming.results.filter((r) => r.error === null).map((r) => r.value!);
    const released = releasing.results.filter((r) => r.error === null).map((r) => r.value!);
    for (const refused of [...confirming.results, ...releasing.results]) {
      if (refused.error !== null) expect(refused.error.code).toBe('RESERVATION_NOT_FOUND');
    }
    // Every value settled by exactly one of them; only the overlap could go either way.
    expect([...confirmed, ...released].sort((a, b) => a - b)).toEqual(
      held.map((h) => h.value).sort((a, b) => a - b),
    );
    expect(confirmed).toEqual(expect.arrayContaining(held.slice(0, 30).map((h) => h.value)));
    expect(released).toEqual(expect.arrayContaining(held.slice(70).map((h) => h.value)));
    confirmedValues.push(...confirmed);
    // The released values come back first, lowest first: hold and confirm them.
    const again = await allocate('batch-race', released.length);
    expect(again.map((h) => h.value)).toEqual([...released].sort((a, b) => a - b));
    const refill = await settle(
      CONFIRM,
      again.map((h) => h.id),
      instances.second,
    );
    expect(refill).toMatchObject({ settled: released.length, failed: 0 });
    confirmedValues.push(...again.map((h) => h.value));
  }
  expect(confirmedValues.sort((a, b) => a - b)).toEqual(
    Array.from({ length: 500 }, (_, i) => i + 1),
  );
  expect(await gapsOf('batch-race')).toEqual({ value: 500, gaps: { runs: [], complete: true } });
});

test('more than 1,000 ids or values are refused whole: nothing held, nothing settled', async () => {
  await define({ name: 'batch-bounds', gapless: true, holdSeconds: 60 });
  const tooMany = await instances.first.graphql(
    ALLOCATE,
    { name: 'batch-bounds', count: 1_001 },
    CLIENT,
  );
  expect(tooMany.body.data.allocateSequence).toMatchObject({
    reservations: [],
    error: { code: 'BAD_USER_INPUT', field: 'count' },
  });
  const held = await allocate('batch-bounds', 1_000);
  expect(held.map((h) => h.value)).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 1));
  const ids = held.map((h) => h.id);
  const refused = await instances.first.graphql(CONFIRM, { ids: [...ids, ids[0]] }, CLIENT);
  const answer =
    refused.body.errors?.[0]?.extensions ?? refused.body.data.confirmReservations.error;
  expect(answer).toMatchObject({ code: 'BAD_USER_INPUT' });
  expect(await gapsOf('batch-bounds')).toEqual({
    value: 1_000,
    gaps: { runs: [{ first: 1, last: 1_000, count: 1_000, kind: 'RESERVED' }], complete: true },
  });
  expect(await settle(CONFIRM, ids)).toMatchObject({ settled: 1_000, failed: 0 });
  expect(await gapsOf('batch-bounds')).toEqual({
    value: 1_000,
    gaps: { runs: [], complete: true },
  });
});
