/**
 * Gapless sequences and the holes of a sequence (issue 22), through the real HTTP server:
 * - an allocation from a gapless sequence is a reservation with an expiry; confirming it uses the
 *   value for good, releasing it (or letting its hold expire) hands it out again before any new
 *   value; only the token that holds a value confirms it;
 * - many clients on two service instances over one database, reserving, confirming, releasing and
 *   abandoning values at once: no value is confirmed twice, and once the free values were handed
 *   out again the confirmed values are exactly 1..N;
 * - `Sequence.gaps` lists a gapless sequence's unconfirmed values and `userid`'s missing ids, a
 *   bounded page at a time; of any other sequence it is null.
 *
 * Requests without a token act as the open-access client `anonymous` (NODE_ENV=test), a second
 * owner beside the test client.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  TEST_ADMIN_TOKEN,
  TEST_CLIENT,
  twoInstancesOnOneDatabase,
  type TestService,
} from '../support/service';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const CLIENT = { authorization: `Bearer ${TEST_CLIENT.token}` };
const ERROR = 'error { code field retryable message }';
const DEFINE = `mutation Define($input: CreateSequenceInput!) {
  createSequence(input: $input) { sequence { id gapless holdSeconds value next } ${ERROR} }
}`;
const ALLOCATE = `mutation Allocate($name: String!, $count: Int) {
  allocateSequence(name: $name, count: $count) {
    range { first last count } reservation { id value expiresAt } sequence { value next } ${ERROR}
  }
}`;
const CONFIRM = `mutation Confirm($id: ID!) {
  confirmReservation(id: $id) { value sequence { value } ${ERROR} }
}`;
const RELEASE = `mutation Release($id: ID!) {
  releaseReservation(id: $id) { value sequence { value next } ${ERROR} }
}`;
const GAPS = `query Gaps($name: String!, $after: Long, $first: Int) {
  sequence(name: $name) {
    value gapless gaps(after: $after, first: $first) { runs { first last count kind } scannedThrough complete }
  }
}`;

const instances = twoInstancesOnOneDatabase();

async function define(input: object, headers: Record<string, string> = CLIENT) {
  const defined = await instances.first.graphql(DEFINE, { input }, headers);
  expect(defined.body.data.createSequence.error).toBeNull();
  return defined.body.data.createSequence.sequence;
}

async function allocate(
  name: string,
  via: TestService = instances.first,
  headers: Record<string, string> = CLIENT,
) {
  const answer = await via.graphql(ALLOCATE, { name }, headers);
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data.allocateSequence;
}

async function settle(
  query: string,
  id: string,
  via: TestService = instances.first,
  headers: Record<string, string> = CLIENT,
) {
  const answer = await via.graphql(query, { id }, headers);
  expect(answer.body.errors).toBeUndefined();
  return Object.values(answer.body.data)[0] as {
    value: number | null;
    error: { code: string; field: string | null } | null;
  };
}

const gapsOf = async (name: string, args: object = {}, headers: Record<string, string> = CLIENT) =>
  (await instances.first.graphql(GAPS, { name, ...args }, headers)).body.data.sequence;

test('a gapless allocation is a reservation; confirmed values stay, released ones come back first', async () => {
  const created = await define({ name: 'invoice-gapless', gapless: true, holdSeconds: 30 });
  expect(created).toMatchObject({ gapless: true, holdSeconds: 30, value: 0, next: 1 });
  const before = Date.now();
  const [one, two, three] = [
    await allocate('invoice-gapless'),
    await allocate('invoice-gapless'),
    await allocate('invoice-gapless'),
  ];
  expect([one, two, three].map((a) => a.range)).toEqual([
    { first: 1, last: 1, count: 1 },
    { first: 2, last: 2, count: 1 },
    { first: 3, last: 3, count: 1 },
  ]);
  expect(one.reservation.value).toBe(1);
  const expiresAt = Date.parse(one.reservation.expiresAt);
  expect(expiresAt).toBeGreaterThanOrEqual(before + 29_000);
  expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30_000);

  expect(await settle(CONFIRM, one.reservation.id)).toMatchObject({ value: 1, error: null });
  // Confirmed once: confirming again answers it confirmed (a safe retry); it cannot be released.
  expect(await settle(CONFIRM, one.reservation.id)).toMatchObject({ value: 1, error: null });
  expect((await settle(RELEASE, one.reservation.id)).error).toMatchObject({
    code: 'RESERVATION_NOT_FOUND',
    field: 'id',
  });
  // 2 released: handed out again before 4; 3 still held.
  expect(await settle(RELEASE, two.reservation.id)).toMatchObject({ value: 2, error: null });
  expect((await gapsOf('invoice-gapless')).gaps).toEqual({
    runs: [
      { first: 2, last: 2, count: 1, kind: 'RELEASED' },
      { first: 3, last: 3, count: 1, kind: 'RESERVED' },
    ],
    scannedThrough: 3,
    complete: true,
  });
  const again = await allocate('invoice-gapless');
  expect(again.reservation.value).toBe(2);
  // A released value stays issued (the counter keeps 3) and comes back before any new one.
  expect(await settle(RELEASE, three.reservation.id)).toMatchObject({
    value: 3,
    sequence: { value: 3, next: 4 },
  });
  expect((await allocate('invoice-gapless')).reservation.value).toBe(3);
  // The old token of 2 holds nothing; the new one confirms.
  expect((await settle(CONFIRM, two.reservation.id)).error?.code).toBe('RESERVATION_NOT_FOUND');
  expect((await settle(CONFIRM, again.reservation.id)).error).toBeNull();
});

test('an expired hold is handed out again; its old token no longer confirms, the new one does', async () => {
  await define({ name: 'expiring', gapless: true, holdSeconds: 1 });
  const first = await allocate('expiring');
  const second = await allocate('expiring');
  expect(await settle(CONFIRM, second.reservation.id)).toMatchObject({ value: 2, error: null });
  // Past its hold but not taken yet: still confirmable by its holder.
  const late = await allocate('expiring');
  await sleep(1_100);
  expect(await settle(CONFIRM, late.reservation.id)).toMatchObject({ value: 3, error: null });
  const retaken = await allocate('expiring');
  expect(retaken.reservation.value).toBe(1);
  expect((await settle(CONFIRM, first.reservation.id)).error?.code).toBe('RESERVATION_NOT_FOUND');
  expect((await settle(CONFIRM, retaken.reservation.id)).error).toBeNull();
  expect((await gapsOf('expiring')).gaps).toEqual({ runs: [], scannedThrough: 3, complete: true });
});

test('reserve 1, 2, 3, let the holds expire, retake and confirm 1: 2 and 3 still confirm', async () => {
  await define({ name: 'promise', gapless: true, holdSeconds: 1 });
  const held = [await allocate('promise'), await allocate('promise'), await allocate('promise')];
  await sleep(1_600);
  const retaken = await allocate('promise');
  expect(retaken.reservation.value).toBe(1);
  expect(await settle(CONFIRM, retaken.reservation.id)).toMatchObject({ value: 1, error: null });
  expect(await settle(CONFIRM, held[1].reservation.id, instances.second)).toMatchObject({
    value: 2,
    error: null,
  });
  expect(await settle(CONFIRM, held[2].reservation.id)).toMatchObject({ value: 3, error: null });
  expect((await settle(CONFIRM, held[0].reservation.id)).error?.code).toBe('RESERVATION_NOT_FOUND');
  expect((await gapsOf('promise')).gaps).toEqual({ runs: [], scannedThrough: 3, complete: true });
});

test('each instance sees what the other changed: a reservation taken on one is confirmed on the other', async () => {
  await define({ name: 'two-instances', gapless: true });
  // Each instance plans from the counter as it last saw it; the other's writes make that stale.
  const onFirst = await allocate('two-instances', instances.first);
  const onSecond = await allocate('two-instances', instances.second);
  expect(onSecond.reservation.value).toBe(2);
  expect((await allocate('two-instances', instances.first)).reservation.value).toBe(3);
  expect(await settle(RELEASE, onSecond.reservation.id, instances.second)).toMatchObject({
    error: null,
  });
  expect(await settle(CONFIRM, onFirst.reservation.id, instances.second)).toMatchObject({
    value: 1,
  });
  const retaken = await allocate('two-instances', instances.first);
  expect(retaken.reservation.value).toBe(2);
  expect(await settle(CONFIRM, retaken.reservation.id, instances.second)).toMatchObject({
    value: 2,
  });
  // Confirmed on one instance: a retry on the other answers it confirmed, and cannot release it.
  expect(await settle(CONFIRM, onFirst.reservation.id, instances.first)).toMatchObject({
    value: 1,
    error: null,
  });
  expect((await settle(RELEASE, onFirst.reservation.id, instances.first)).error?.code).toBe(
    'RESERVATION_NOT_FOUND',
  );
});

test('bad requests change nothing: count above 1,000, setSequence, another owner, a malformed id', async () => {
  await define({ name: 'strict', gapless: true });
  const many = await instances.first.graphql(ALLOCATE, { name: 'strict', count: 1_001 }, CLIENT);
  expect(many.body.data.allocateSequence.error).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'count',
  });
  const held = await allocate('strict');
  // The admin names the client's sequence as its stored id reads: `<client>~<name>`.
  const set = await instances.first.graphql(
    `mutation { setSequence(name: "${TEST_CLIENT.client}~strict", value: 10) { sequence { value } error { code field } } }`,
    {},
    ADMIN,
  );
  expect(set.body.data.setSequence.error).toEqual({ code: 'BAD_USER_INPUT', field: 'name' });
  // The open-access client is another owner: it sees no such sequence.
  expect((await settle(CONFIRM, held.reservation.id, instances.first, {})).error?.code).toBe(
    'SEQUENCE_NOT_FOUND',
  );
  for (const id of [
    'strict',
    'strict:1',
    `strict:x:${'a'.repeat(16)}`,
    `${held.reservation.id}:1`,
  ]) {
    expect((await settle(CONFIRM, id)).error).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'id',
    });
  }
  const undefinedHold = await instances.first.graphql(
    DEFINE,
    { input: { name: 'not-gapless', holdSeconds: 5 } },
    CLIENT,
  );
  expect(undefinedHold.body.data.createSequence.error).toMatchObject({ field: 'holdSeconds' });
  const conflicting = await instances.first.graphql(DEFINE, { input: { name: 'strict' } }, CLIENT);
  expect(conflicting.body.data.createSequence.error).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'holdSeconds',
  });
  const db = instances.first.client.db(instances.first.dbName);
  const id = `${TEST_CLIENT.client}~strict`;
  expect(await db.collection('counters').findOne({ _id: id as never })).toMatchObject({ seq: 1 });
  const values = await db.collection('gapless_values').find({ sequence: id }).toArray();
  expect(values).toEqual([expect.objectContaining({ value: 1, token: expect.any(String) })]);
  expect((await settle(CONFIRM, held.reservation.id)).error).toBeNull();
});

test('32 clients on two instances reserve, confirm, release and abandon at once: confirmed values are exactly 1..N', async () => {
  const name = 'concurrent-gapless';
  await define({ name, gapless: true, holdSeconds: 1 });
  const confirmed: number[] = [];
  const tally = {
    released: 0,
    abandoned: 0,
    contention: 0,
    lostToExpiry: 0,
    unavailable: 0,
  };
  let draw = 7;
  const random = () => {
    draw = (draw * 1103515245 + 12345) % 2 ** 31;
    return draw / 2 ** 31;
  };
  const client = async (index: number) => {
    const via = index % 2 === 0 ? instances.first : instances.second;
    for (let round = 0; round < 12; round += 1) {
      const answer = await via.graphql(ALLOCATE, { name }, CLIENT);
      if (answer.body.data == null) {
        // A request past its deadline on a loaded machine: 503, retryable; a value it may have
        // reserved is abandoned, expires and is refilled below like any other.
        expect(answer.body.errors?.[0]?.extensions).toMatchObject({
          code: 'SERVICE_UNAVAILABLE',
          retryable: true,
        });
        tally.unavailable += 1;
        continue;
      }
      const allocated = answer.body.data.allocateSequence;
      if (allocated.error !== null) {
        expect(allocated.error).toMatchObject({ code: 'ID_CONTENTION', retryable: true });
        tally.contention += 1;
        continue;
      }
      const roll = random();
      if (roll < 0.6) {
        const done = await settle(CONFIRM, allocated.reservation.id, via);
        if (done.error === null) confirmed.push(done.value as number);
        else {
          // Only possible when this value's hold ran out under load and another client took it.
          expect(done.error.code).toBe('RESERVATION_NOT_FOUND');
          tally.lostToExpiry += 1;
        }
      } else if (roll < 0.8) {
        await settle(RELEASE, allocated.reservation.id, via);
        tally.released += 1;
      } else {
        tally.abandoned += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: 32 }, (_, i) => client(i)));
  expect(new Set(confirmed).size).toBe(confirmed.length);
  expect(tally.released + tally.abandoned).toBeGreaterThan(0);

  // Let the abandoned holds expire, then take and confirm values until no hole is left: each of
  // these comes from the holes (released or expired) before any new value.
  await sleep(1_100);
  const holes = await gapsOf(name, { first: 100 });
  const free = holes.gaps.runs.flatMap((gap: { first: number; last: number }) =>
    Array.from({ length: gap.last - gap.first + 1 }, (_, i) => gap.first + i),
  );
  expect(holes.gaps.runs.every((gap: { kind: string }) => gap.kind === 'RELEASED')).toBe(true);
  const refilled: number[] = [];
  for (let i = 0; i < free.length; i += 1) {
    const allocated = await allocate(name);
    expect((await settle(CONFIRM, allocated.reservation.id)).error).toBeNull();
    refilled.push(allocated.reservation.value);
  }
  expect(refilled).toEqual(free);
  const all = [...confirmed, ...refilled].sort((a, b) => a - b);
  const after = await gapsOf(name);
  expect(after.gaps).toEqual({ runs: [], scannedThrough: after.value, complete: true });
  expect(all).toEqual(Array.from({ length: after.value }, (_, i) => i + 1));
  // Every round of every client is accounted for: confirmed, lost to an expired hold, released,
  // abandoned, refused as contention or past its deadline (how many of each depends on the load).
  expect(
    confirmed.length +
      tally.lostToExpiry +
      tally.released +
      tally.abandoned +
      tally.contention +
      tally.unavailable,
  ).toBe(32 * 12);
  expect(confirmed.length).toBeGreaterThan(0);
  const waiting = await instances.first.client
    .db(instances.first.dbName)
    .collection('gapless_values')
    .countDocuments({ sequence: `${TEST_CLIENT.client}~${name}`, expiresAt: { $exists: true } });
  expect(waiting).toBe(0);
});

test('userid gaps: ids no user holds, below the largest stored one, a bounded page at a time', async () => {
  const db = instances.first.client.db(instances.first.dbName);
  const users = db.collection('users');
  const create = (name: string, email?: string) =>
    instances.first.graphql(
      'mutation C($input: CreateUserInput!) { createUser(input: $input) { user { id } error { code } } }',
      { input: { name, email } },
      CLIENT,
    );
  const ids: string[] = [];
  for (let i = 0; i < 8; i += 1) {
    ids.push((await create(`gap user ${i}`, `gap${i}@example.test`)).body.data.createUser.user.id);
  }
  // The admin moves the counter past two ids: no user will ever hold them.
  const next = (await instances.first.graphql('{ nextSequence(name: "userid") }', {}, ADMIN)).body
    .data.nextSequence;
  await instances.first.graphql(
    `mutation { setSequence(name: "userid", value: ${next + 1}) { error { code } } }`,
    {},
    ADMIN,
  );
  ids.push((await create('after the twin')).body.data.createUser.user.id);
  const numbers = ids.map(Number);
  await users.deleteMany({ _id: { $in: [numbers[2], numbers[3]].map((n) => n as never) } });
  const page = await gapsOf('userid', {}, ADMIN);
  const [lowest] = numbers;
  const expected = [
    ...(lowest > 1 ? [{ first: 1, last: lowest - 1, count: lowest - 1, kind: 'MISSING' }] : []),
    { first: numbers[2], last: numbers[3], count: 2, kind: 'MISSING' },
    { first: numbers[7] + 1, last: numbers[7] + 2, count: 2, kind: 'MISSING' },
  ];
  expect(page.gaps).toEqual({ runs: expected, scannedThrough: numbers[8], complete: true });
  // One run per page: each page ends where the next begins.
  const firstPage = (await gapsOf('userid', { first: 1 }, ADMIN)).gaps;
  expect(firstPage).toMatchObject({ runs: [expected[0]], complete: false });
  const secondPage = (await gapsOf('userid', { first: 1, after: firstPage.scannedThrough }, ADMIN))
    .gaps;
  expect(secondPage.runs).toEqual([expected[1]]);
  const bad = await instances.first.graphql(GAPS, { name: 'userid', first: 101 }, ADMIN);
  expect(bad.body.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
});

test('a plain sequence lists no gaps: the service cannot see which of its values were used', async () => {
  await define({ name: 'plain-audit' });
  await allocate('plain-audit');
  expect(await gapsOf('plain-audit')).toEqual({ value: 1, gapless: false, gaps: null });
});

test('gaps pages count against the per-request listing bound, over aliases and batched operations', async () => {
  await define({ name: 'audited', gapless: true });
  // Four calls: the most whose stored values one request may read (SCANNED_VALUES_PER_REQUEST).
  const aliased = `{ ${Array.from({ length: 4 }, (_, i) => `a${i}: sequence(name: "audited") { gaps(first: 100) { complete } }`).join(' ')} }`;
  const post = (operations: number) =>
    fetch(`${instances.first.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...CLIENT },
      body: JSON.stringify(Array.from({ length: operations }, () => ({ query: aliased }))),
      signal: AbortSignal.timeout(30_000),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
  const refused = await post(6);
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0].extensions).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'first',
  });
  expect(refused.body.errors[0].message).toMatch(/at most 2000 items.*2400/);
  const allowed = await post(1);
  expect(allowed.status).toBe(200);
  expect(allowed.body[0].errors).toBeUndefined();
  // Two such operations (eight calls) are past the values gaps calls may read in one request.
  const scanning = await post(2);
  expect(scanning.status).toBe(400);
  expect(scanning.body.errors[0].extensions).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'gaps',
  });
});
