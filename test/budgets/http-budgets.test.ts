/**
 * Caller budgets over HTTP (src/budgets), in production, through the real HTTP server and the real
 * driver, with a test-sized budget from `BUDGETS` so a flood is short, and once with the defaults:
 * - with the shipped defaults, 1,000 anonymous `createUser`s from one address get the documented
 *   budget created on one instance, and no more over two;
 * - one address flooding `createUser` gets exactly its budget created, the rest 429 RATE_LIMITED
 *   with `Retry-After` and `retryAfter`; the users stored are the users acknowledged;
 * - the same flood spread over two instances on one database gets no more in total;
 * - a client token's budget is untouched by it, and `viewer { limits { budgets } }` shows both;
 * - `/metrics` counts the refusals by budget, never by address;
 * - addresses: `X-Forwarded-For` is believed only with `TRUST_PROXY`, and then each address has a
 *   budget of its own.
 */
import { BUDGETS as DEFAULT_BUDGETS } from '../../src/limits';
import { uniqueDbName } from '../support/db';
import { CLIENT_HEADERS, servicesStoppedAfterAll, type TestService } from '../support/service';

const BUDGET = 20;
const PRODUCTION = {
  NODE_ENV: 'production',
  BUDGETS: `usersCreated.anonymous=${BUDGET}/600,usersCreated.client=50/600`,
};
const CREATE_USER = `mutation ($input: CreateUserInput!) {
  createUser(input: $input) { user { id } error { code } }
}`;
const BUDGETS = `{ viewer { limits { budgets { name limit windowSeconds remaining resetsInSeconds } } } }`;

const start = servicesStoppedAfterAll();

/** Sends `count` anonymous createUsers, `concurrency` at a time, round robin over `services`. */
async function flood(
  services: TestService[],
  count: number,
  concurrency: number,
  headers: (i: number) => Record<string, string> = () => ({}),
) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read freely (ARCHITECTURE.md)
  const answers: Array<{ status: number; retryAfter: string | null; body: any }> = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const service = services[i % services.length];
      const response = await fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers(i) },
        body: JSON.stringify({ query: CREATE_USER, variables: { input: { name: `flood ${i}` } } }),
        signal: AbortSignal.timeout(60_000),
      });
      answers.push({
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: await response.json(),
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answers;
}

function tally(answers: Awaited<ReturnType<typeof flood>>) {
  const created = answers.filter((a) => a.status === 200 && a.body.data?.createUser?.user !== null);
  const refused = answers.filter((a) => a.status === 429);
  return { created: created.length, refused };
}

async function storedUsers(service: TestService): Promise<number> {
  return service.client.db(service.dbName).collection('users').countDocuments();
}

test('one address flooding createUser gets its budget created, the rest 429 RATE_LIMITED', async () => {
  const service = await start({ env: PRODUCTION });
  const answers = await flood([service], 200, 8);
  const { created, refused } = tally(answers);
  expect(created).toBe(BUDGET);
  expect(refused).toHaveLength(200 - BUDGET);
  expect(await storedUsers(service)).toBe(BUDGET);
  for (const answer of refused) {
    const retryAfter = Number(answer.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors[0].extensions).toEqual({
      code: 'RATE_LIMITED',
      retryable: true,
      retryAfter,
      budget: 'usersCreated',
      requestId: expect.any(String),
    });
  }

  // The client's budget is its own: untouched by the anonymous flood.
  const client = await service.graphql(BUDGETS, {}, CLIENT_HEADERS);
  const clientUsers = client.body.data.viewer.limits.budgets.find(
    (budget: { name: string }) => budget.name === 'usersCreated',
  );
  expect(clientUsers).toEqual({
    name: 'usersCreated',
    limit: 50,
    windowSeconds: 600,
    remaining: 50,
    resetsInSeconds: null,
  });
  const created1 = await service.graphql(
    CREATE_USER,
    { input: { name: 'a client' } },
    CLIENT_HEADERS,
  );
  expect(created1.body.data.createUser.user).not.toBeNull();

  // The anonymous caller sees its budget spent, and when it comes back.
  const anonymous = await service.graphql(BUDGETS);
  const spent = anonymous.body.data.viewer.limits.budgets.find(
    (budget: { name: string }) => budget.name === 'usersCreated',
  );
  expect(spent).toMatchObject({ limit: BUDGET, windowSeconds: 600, remaining: 0 });
  expect(spent.resetsInSeconds).toBeGreaterThanOrEqual(1);
  expect(spent.resetsInSeconds).toBeLessThanOrEqual(600);

  // /metrics counts the refusals by budget, and names no address.
  const metrics = await fetch(`${service.url}/metrics`, { headers: CLIENT_HEADERS });
  const text = await metrics.text();
  expect(text).toContain(
    `sequential_ids_budget_refusals_total{budget="usersCreated"} ${200 - BUDGET}`,
  );
  expect(text).toContain('sequential_ids_budget_refusals_total{budget="gapsScans"} 0');
  expect(text).not.toContain('127.0.0.1');
});

test('the same flood over two instances on one database gets no more in total', async () => {
  const dbName = uniqueDbName('budgets-two');
  const first = await start({ dbName, env: PRODUCTION });
  const second = await start({ dbName, env: PRODUCTION });
  const answers = await flood([first, second], 200, 8);
  const { created, refused } = tally(answers);
  expect(created).toBeLessThanOrEqual(BUDGET);
  // Each instance may hold back at most its unspent lease (a twentieth of the budget: one user).
  expect(created).toBeGreaterThanOrEqual(BUDGET - 2);
  expect(refused).toHaveLength(200 - created);
  expect(await storedUsers(first)).toBe(created);
});

test('the shipped defaults: 1,000 anonymous sign-ups from one address, on one instance and on two', async () => {
  const defaults = { NODE_ENV: 'production' };
  const anonymousBudget = DEFAULT_BUDGETS.usersCreated.anonymous?.points ?? Number.NaN;
  const clientBudget = DEFAULT_BUDGETS.usersCreated.client?.points ?? Number.NaN;

  const alone = await start({ env: defaults });
  const one = tally(await flood([alone], 1_000, 8));
  expect(one.created).toBe(anonymousBudget);
  expect(one.refused).toHaveLength(1_000 - anonymousBudget);
  for (const answer of one.refused) {
    expect(answer.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfter: Number(answer.retryAfter),
    });
  }

  const dbName = uniqueDbName('budgets-defaults-two');
  const pair = [await start({ dbName, env: defaults }), await start({ dbName, env: defaults })];
  const two = tally(await flood(pair, 1_000, 8));
  expect(two.created).toBeLessThanOrEqual(one.created);
  expect(two.refused).toHaveLength(1_000 - two.created);
  expect(await storedUsers(pair[0])).toBe(two.created);

  // The client token's budget is its own: the floods took nothing of it.
  const client = await pair[1].graphql(BUDGETS, {}, CLIENT_HEADERS);
  expect(
    client.body.data.viewer.limits.budgets.find(
      (budget: { name: string }) => budget.name === 'usersCreated',
    ),
  ).toMatchObject({ limit: clientBudget, remaining: clientBudget });
});

test('X-Forwarded-For is believed only with TRUST_PROXY, then each address has its own budget', async () => {
  const unproxied = await start({ env: PRODUCTION });
  // Without TRUST_PROXY a caller cannot pick a fresh address for each request.
  const spoofed = tally(
    await flood([unproxied], 40, 4, (i) => ({ 'x-forwarded-for': `198.51.100.${i}` })),
  );
  expect(spoofed.created).toBe(BUDGET);

  const proxied = await start({ env: { ...PRODUCTION, TRUST_PROXY: '1' } });
  // Behind one proxy: the proxy's addition (the rightmost) is the client; what a client wrote
  // to the left of it is never read.
  const two = tally(
    await flood([proxied], 60, 4, (i) => ({
      'x-forwarded-for': `10.0.0.${i}, 203.0.113.${i % 2}`,
    })),
  );
  expect(two.created).toBe(2 * BUDGET);
});
