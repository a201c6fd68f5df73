/**
 * Budgets that refuse one field, not the whole request (src/budgets, wired in
 * src/graphql/resolvers.ts), through the real HTTP server with test-sized budgets:
 * - `allocateSequence` past `sequenceValues`: RATE_LIMITED (retryable, `retryAfter`), nothing
 *   consumed;
 * - a gapless allocation past `gaplessHeld`: RATE_LIMITED, and the values it took are released
 *   (all of a batch), so the next caller with budget gets them (no hole, nothing held);
 * - `Sequence.gaps` past `gapsScans`: its field is RATE_LIMITED, the rest of the answer stands.
 */
import { CLIENT_HEADERS, servicesStoppedAfterAll, type TestService } from '../support/service';

const DEFINE = `mutation Define($input: CreateSequenceInput!) {
  createSequence(input: $input) { sequence { id } error { code } }
}`;
const ALLOCATE = `mutation Allocate($name: String!, $count: Int) {
  allocateSequence(name: $name, count: $count) {
    range { first last } reservation { id value } error { code }
  }
}`;
const GAPS = `query Gaps($name: String!) {
  sequence(name: $name) { value gaps { scannedThrough } }
}`;

const start = servicesStoppedAfterAll();

/** A service with `budgets` (BUDGETS) and the sequences `plain` and gapless `held` defined. */
async function serviceWith(budgets: string, dbName?: string): Promise<TestService> {
  const service = await start({ dbName, env: { BUDGETS: budgets } });
  if (dbName !== undefined) return service;
  for (const input of [{ name: 'plain' }, { name: 'held', gapless: true }]) {
    const defined = await service.graphql(DEFINE, { input }, CLIENT_HEADERS);
    expect(defined.body.data.createSequence.error).toBeNull();
  }
  return service;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read freely (ARCHITECTURE.md)
function expectRateLimited(errors: any[] | undefined, budget: string) {
  expect(errors).toHaveLength(1);
  expect(errors![0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryable: true, budget });
  expect(errors![0].extensions.retryAfter).toBeGreaterThanOrEqual(1);
  expect(errors![0].extensions.retryAfter).toBeLessThanOrEqual(600);
}

test('allocateSequence past sequenceValues is RATE_LIMITED and consumes nothing', async () => {
  const service = await serviceWith('sequenceValues.client=10/600');
  const first = await service.graphql(ALLOCATE, { name: 'plain', count: 8 }, CLIENT_HEADERS);
  expect(first.body.data.allocateSequence.range).toEqual({ first: 1, last: 8 });
  const past = await service.graphql(ALLOCATE, { name: 'plain', count: 3 }, CLIENT_HEADERS);
  expect(past.status).toBe(200);
  expect(past.body.data.allocateSequence).toBeNull();
  expectRateLimited(past.body.errors, 'sequenceValues');
  // What is left of the budget still serves a smaller allocation, from where the counter stood.
  const rest = await service.graphql(ALLOCATE, { name: 'plain', count: 2 }, CLIENT_HEADERS);
  expect(rest.body.data.allocateSequence.range).toEqual({ first: 9, last: 10 });
});

test('a gapless value past gaplessHeld is refused and released, not left held', async () => {
  const service = await serviceWith('gaplessHeld.client=2/600');
  const values: number[] = [];
  for (let i = 0; i < 2; i += 1) {
    const held = await service.graphql(ALLOCATE, { name: 'held' }, CLIENT_HEADERS);
    values.push(held.body.data.allocateSequence.reservation.value);
  }
  expect(values).toEqual([1, 2]);
  const past = await service.graphql(ALLOCATE, { name: 'held' }, CLIENT_HEADERS);
  expect(past.body.data.allocateSequence).toBeNull();
  expectRateLimited(past.body.errors, 'gaplessHeld');
  // The value the refused call took is free again: an instance with a larger budget on the same
  // database hands it out next, so no value is held for nobody and none is skipped.
  const roomier = await serviceWith('gaplessHeld.client=10/600', service.dbName);
  const next = await roomier.graphql(ALLOCATE, { name: 'held' }, CLIENT_HEADERS);
  expect(next.body.data.allocateSequence.reservation.value).toBe(3);
});

test('a gapless batch past gaplessHeld is refused whole and every value it took released', async () => {
  const service = await serviceWith('gaplessHeld.client=5/600');
  const first = await service.graphql(ALLOCATE, { name: 'held', count: 3 }, CLIENT_HEADERS);
  expect(first.body.data.allocateSequence.range).toEqual({ first: 1, last: 3 });
  // 3 more values would hold 6, past 5: refused, and the 3 it took go back.
  const past = await service.graphql(ALLOCATE, { name: 'held', count: 3 }, CLIENT_HEADERS);
  expect(past.body.data.allocateSequence).toBeNull();
  expectRateLimited(past.body.errors, 'gaplessHeld');
  const roomier = await serviceWith('gaplessHeld.client=10/600', service.dbName);
  const next = await roomier.graphql(ALLOCATE, { name: 'held', count: 4 }, CLIENT_HEADERS);
  expect(next.body.data.allocateSequence.range).toEqual({ first: 4, last: 7 });
});

test('Sequence.gaps past gapsScans refuses its field; the rest of the answer stands', async () => {
  const service = await serviceWith('gapsScans.client=2/600');
  const allocated = await service.graphql(ALLOCATE, { name: 'held' }, CLIENT_HEADERS);
  expect(allocated.body.data.allocateSequence.reservation.value).toBe(1);
  for (let i = 0; i < 2; i += 1) {
    const read = await service.graphql(GAPS, { name: 'held' }, CLIENT_HEADERS);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.sequence.gaps).not.toBeNull();
  }
  const past = await service.graphql(GAPS, { name: 'held' }, CLIENT_HEADERS);
  expect(past.status).toBe(200);
  expect(past.body.data.sequence.value).toBe(1);
  expect(past.body.data.sequence.gaps).toBeNull();
  expectRateLimited(past.body.errors, 'gapsScans');
});
