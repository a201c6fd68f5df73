/**
 * The HTTP endpoints beside GraphQL, through a real HTTP client: /health, /ready (also with the
 * database unreachable), /metrics, and GraphQL answering SERVICE_UNAVAILABLE instead of hanging.
 */
import { createServer } from 'node:net';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../support/service';

/** A port on 127.0.0.1 that nothing listens on: connecting to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Bounded so a hang fails the test instead of waiting for jest's timeout. */
const get = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(15_000), redirect: 'manual' });

describe('with the database reachable', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });

  afterAll(async () => {
    await service.stop();
  });

  test('/health answers 200', async () => {
    const response = await get(`${service.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  test('/ready answers 200', async () => {
    const response = await get(`${service.url}/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready' });
  });

  test('/ready answers 503 while the users collection has lost its unique indexes, then 200 once rebuilt', async () => {
    const users = service.client.db(service.dbName).collection('users');
    await users.drop();
    const missing = await get(`${service.url}/ready`);
    expect(missing.status).toBe(503);
    expect(await missing.json()).toEqual({ status: 'indexes rebuilding' });
    let status = missing.status;
    for (let polls = 0; status !== 200 && polls < 100; polls += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await get(`${service.url}/ready`)).status;
    }
    expect(status).toBe(200);
    const unique = (await users.indexes())
      .filter((index) => index.unique)
      .map((index) => index.name);
    expect(unique.length).toBeGreaterThanOrEqual(2);
  });

  test('no GraphQL answer may be stored by a cache: POST, GET and errors all say no-store', async () => {
    const posted = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: '{ nextSequence(name: "userid") }',
      }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(posted.status).toBe(200);
    expect(posted.headers.get('cache-control')).toBe('no-store');
    const read = await fetch(
      `${service.url}/graphql?query=${encodeURIComponent('{ nextSequence(name: "userid") }')}`,
      { headers: { 'apollo-require-preflight': 'true' }, signal: AbortSignal.timeout(15_000) },
    );
    expect(read.headers.get('cache-control')).toBe('no-store');
    const invalid = await get(`${service.url}/graphql?query=${encodeURIComponent('{ nope }')}`);
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('cache-control')).toBe('no-store');
  });

  test('/metrics shows the users created and the counter writes in Prometheus text', async () => {
    const created = await service.graphql(
      `mutation { createUser(input: { name: "Metered" }, strategy: COUNTER) { user { id } } }`,
    );
    expect(created.body.errors).toBeUndefined();
    const response = await get(`${service.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toMatch(/^sequential_ids_users_created_total\{[^}]*strategy="COUNTER"[^}]*\} 1$/m);
    expect(text).toMatch(
      /^sequential_ids_counter_document_writes_total\{[^}]*sequence="userid"[^}]*\} 1$/m,
    );
  });

  test('strategyStats reports the same creation', async () => {
    const response = await service.graphql(
      `{ strategyStats { strategy usersCreated insertAttempts } }`,
    );
    expect(response.body.data.strategyStats).toContainEqual({
      strategy: 'COUNTER',
      usersCreated: 1,
      insertAttempts: 1,
    });
  });
});

describe('with the database unreachable', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({
      mongodbUri: `mongodb://127.0.0.1:${await closedPort()}/?directConnection=true`,
      ensureIndexes: false,
    });
  });

  afterAll(async () => {
    await service.stop();
  });

  test('/health stays 200 while /ready answers 503', async () => {
    const [health, ready] = await Promise.all([
      get(`${service.url}/health`),
      get(`${service.url}/ready`),
    ]);
    expect(health.status).toBe(200);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'database unreachable' });
  });

  test('a GraphQL request ends in SERVICE_UNAVAILABLE, retryable, instead of hanging', async () => {
    const [query, mutation] = await Promise.all([
      service.graphql(
        `{ nextSequence(name: "userid") }`,
        {},
        {
          authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        },
      ),
      service.graphql(`mutation { createUser(input: { name: "Nobody" }) { user { id } } }`),
    ]);
    for (const response of [query, mutation]) {
      expect(response.status).toBe(200);
      expect(response.body.errors?.[0]?.extensions).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        retryable: true,
      });
      expect(response.body.errors?.[0]?.message).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    }
  });
});
