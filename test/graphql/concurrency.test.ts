/**
 * Many clients at once through the real HTTP server and the real driver: every acknowledged user
 * has its own id and is stored, whatever mix of strategies creates them; a keyed batch sent several
 * times at once creates each user once, and every other send says it replayed it.
 */
import { ID_STRATEGIES } from '../../src/strategies';
import { startPatientService, type TestService } from '../support/service';
import { storedIds } from '../support/stored-users';

const CREATE_USER = `
  mutation Create($input: CreateUserInput!, $strategy: IdStrategy) {
    createUser(input: $input, strategy: $strategy) {
      user { id createdWith }
      error { code retryable }
    }
  }`;
const REQUESTS = 500;

let service: TestService;

beforeAll(async () => {
  service = await startPatientService();
});

afterAll(async () => {
  await service.stop();
});

test('500 concurrent createUser with mixed strategies give 500 distinct ids and 500 stored users', async () => {
  // No strategy answers an error: TRANSACTION's rounds run alone in the process, so they never
  // conflict with the other strategies' writes of the same counter (src/strategies).
  const responses = await Promise.all(
    Array.from({ length: REQUESTS }, (_, i) =>
      service.graphql(CREATE_USER, {
        input: { name: `Concurrent ${i}` },
        strategy: ID_STRATEGIES[i % ID_STRATEGIES.length],
      }),
    ),
  );
  const ids = responses.map((response) => {
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.createUser.error).toBeNull();
    return response.body.data.createUser.user.id as string;
  });
  expect(new Set(ids).size).toBe(REQUESTS);

  const stored = await storedIds(service.client.db(service.dbName));
  expect(stored).toHaveLength(REQUESTS);
  expect(new Set(stored.map(String))).toEqual(new Set(ids));

  const counter = await service.client
    .db(service.dbName)
    .collection('counters')
    .findOne({ _id: 'userid' as never });
  const maxCounterIssued = Math.max(
    ...responses
      .filter((r) => r.body.data.createUser.user.createdWith !== 'OPTIMISTIC_LOOP')
      .map((r) => Number(r.body.data.createUser.user.id)),
  );
  expect(Number(counter?.seq)).toBeGreaterThanOrEqual(maxCounterIssued);
}, 180_000);

test.each(ID_STRATEGIES)(
  '%s: one keyed batch sent 4 times at once creates each user once; the other sends say replayed',
  async (strategy) => {
    const SENDS = 4;
    const ITEMS = 25;
    const inputs = Array.from({ length: ITEMS }, (_, i) => ({
      name: `Raced ${i}`,
      idempotencyKey: `raced-${strategy}-${i}`,
    }));
    const responses = await Promise.all(
      Array.from({ length: SENDS }, () =>
        service.graphql(
          `mutation Many($inputs: [CreateUserInput!]!, $strategy: IdStrategy) {
            createUsers(inputs: $inputs, strategy: $strategy) {
              created replayed failed results { replayed user { id } error { code } }
            }
          }`,
          { inputs, strategy },
        ),
      ),
    );
    const payloads = responses.map((response) => {
      expect(response.body.errors).toBeUndefined();
      return response.body.data.createUsers;
    });
    for (const payload of payloads) {
      expect(payload.failed).toBe(0);
      expect(payload.created + payload.replayed).toBe(ITEMS);
      expect(payload.created).toBe(
        payload.results.filter((r: { replayed: boolean }) => !r.replayed).length,
      );
    }
    expect(payloads.reduce((sum, payload) => sum + payload.created, 0)).toBe(ITEMS);
    for (let i = 0; i < ITEMS; i += 1) {
      const results = payloads.map((payload) => payload.results[i]);
      expect(results.filter((result) => result.replayed === false)).toHaveLength(1);
      expect(new Set(results.map((result) => result.user.id)).size).toBe(1);
    }
    const stored = await service.client
      .db(service.dbName)
      .collection('users')
      .find({ idempotencyKey: { $regex: `^raced-${strategy}-` } })
      .toArray();
    expect(stored).toHaveLength(ITEMS);
    expect(new Set(stored.map((doc) => String(doc._id)))).toEqual(
      new Set(payloads[0].results.map((result: { user: { id: string } }) => result.user.id)),
    );
  },
  120_000,
);
