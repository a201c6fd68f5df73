/**
 * How a request's plan charges the caller's budgets (src/graphql/request-bounds.ts `charge`):
 * once, with the total of all its operations, only after every bound passed; a refusal of the
 * budget refuses the request whole, and a charge that fails otherwise refuses it as
 * SERVICE_UNAVAILABLE (retryable) rather than running it unbudgeted.
 */
import { RateLimitedError } from '../../src/budgets';
import { RequestBounds, RequestBoundsError } from '../../src/graphql/request-bounds';

const tally = (usersCreated: number) => ({
  usersCreated,
  sequenceAllocations: 0,
  listedItems: 0,
  scannedValues: 0,
});

test('a batch is charged once, with its total, after every operation is planned', async () => {
  const charges: number[] = [];
  const bounds = new RequestBounds(3, {
    usersPerRequest: 1_000,
    anonymous: false,
    charge: async (total) => {
      charges.push(total.usersCreated);
    },
  });
  await Promise.all([bounds.check(tally(1)), bounds.check(tally(2)), bounds.check(tally(3))]);
  expect(charges).toEqual([6]);
  expect(bounds.refusal).toBeNull();
});

test('a request over a bound is refused by the bound, and charges nothing', () => {
  let charged = false;
  const bounds = new RequestBounds(1, {
    usersPerRequest: 1,
    anonymous: true,
    charge: () => {
      charged = true;
    },
  });
  expect(() => bounds.check(tally(2))).toThrow(RequestBoundsError);
  expect(charged).toBe(false);
});

test('a budget refusal refuses the whole request', async () => {
  const refusal = new RateLimitedError('usersCreated', 7, { points: 30, seconds: 600 });
  const bounds = new RequestBounds(2, {
    usersPerRequest: 1_000,
    anonymous: false,
    charge: () => Promise.reject(refusal),
  });
  const outcomes = await Promise.allSettled([bounds.check(tally(1)), bounds.check(tally(1))]);
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  expect(bounds.refusal).toBe(refusal);
});

test.each([
  [
    'throws',
    () => {
      throw new Error('the store and its fallback failed');
    },
  ],
  ['rejects', () => Promise.reject(new Error('the store and its fallback failed'))],
])('a charge that %s otherwise is SERVICE_UNAVAILABLE, retryable', async (_how, charge) => {
  const bounds = new RequestBounds(1, { usersPerRequest: 1, anonymous: true, charge });
  await expect(async () => bounds.check(tally(1))).rejects.toMatchObject({
    code: 'SERVICE_UNAVAILABLE',
    status: 503,
    retryable: true,
  });
});
