/**
 * The service through a database outage, on a private stand-in this file can stop, restart and
 * give server-wide fail points without touching other test files: /health stays up, /ready and
 * GraphQL say the database is unavailable, a request never outlives REQUEST_TIMEOUT_MS, and the
 * service serves again once the database is back, without a restart.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startStandin, type RunningStandin } from 'mongodb-standin';
import { startTestService, TEST_CLIENT, type TestService } from '../support/service';
import {
  appNameOf,
  serviceOnFaultyDatabase,
  startFaultyDatabase,
  type FaultyDatabase,
} from './faulty-database';

const CREATE_USER = `mutation Create($name: String!) { createUser(input: { name: $name }) { user { id } } }`;
const READY_POLLS = 60;
const POLL_INTERVAL_MS = 500;

const get = (url: string) => fetch(url, { signal: AbortSignal.timeout(15_000) });

async function readyStatus(service: TestService): Promise<number> {
  return (await get(`${service.url}/ready`)).status;
}

describe('when the database stops and comes back', () => {
  let standin: RunningStandin;
  let service: TestService;

  beforeAll(async () => {
    standin = await startStandin({ log: () => {} });
    service = await startTestService({ mongodbUri: standin.uri });
  });

  afterAll(async () => {
    await service.stop();
    await standin.stop();
  });

  test('the service reports it, stays alive, and serves again without a restart', async () => {
    expect(
      (await service.graphql(CREATE_USER, { name: 'Before' })).body.data.createUser.user.id,
    ).toBe('1');
    expect(await readyStatus(service)).toBe(200);

    const port = standin.port;
    await standin.stop();

    const [health, ready, during] = await Promise.all([
      get(`${service.url}/health`),
      get(`${service.url}/ready`),
      service.graphql(CREATE_USER, { name: 'During' }),
    ]);
    expect(health.status).toBe(200);
    expect(ready.status).toBe(503);
    expect(during.body.errors?.[0]?.extensions).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      retryable: true,
    });

    standin = await startStandin({ port, log: () => {} });
    let polls = 0;
    while ((await readyStatus(service)) !== 200 && polls < READY_POLLS) {
      polls += 1;
      await sleep(POLL_INTERVAL_MS);
    }
    expect(await readyStatus(service)).toBe(200);
    // The restarted stand-in is empty: the id sequence starts again.
    const after = await service.graphql(CREATE_USER, { name: 'After' });
    expect(after.body.errors).toBeUndefined();
    expect(after.body.data.createUser.user.id).toBe('1');
  });
});

describe('when the database stalls', () => {
  const faulty = serviceOnFaultyDatabase({ REQUEST_TIMEOUT_MS: '1000', DB_TIMEOUT_MS: '20000' });

  test('a request is answered 503 SERVICE_UNAVAILABLE at REQUEST_TIMEOUT_MS, and the next one succeeds', async () => {
    const stalled = await faulty.database.whileFind({ blockTimeMS: 4_000 }, { times: 1 }, () =>
      faulty.service.graphql(`{ user(id: "1") { id } }`),
    );
    expect(stalled.status).toBe(503);
    expect(stalled.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
    const next = await faulty.service.graphql(`{ user(id: "1") { id } }`);
    expect(next.status).toBe(200);
    expect(next.body).toEqual({ data: { user: null }, extensions: { cost: expect.any(Object) } });
  });

  test('a database stalled past DB_TIMEOUT_MS is SERVICE_UNAVAILABLE, not a hang', async () => {
    const quick = await startTestService({
      mongodbUri: faulty.database.uri,
      env: { REQUEST_TIMEOUT_MS: '30000', DB_TIMEOUT_MS: '1000' },
    });
    // The faulty database fails only the commands of the client it is scoped to.
    const scopeTo = (service: TestService) => faulty.database.scopeTo(appNameOf(service));
    scopeTo(quick);
    try {
      const stalled = await faulty.database.whileFind({ blockTimeMS: 3_000 }, 'alwaysOn', () =>
        quick.graphql(`{ user(id: "1") { id } }`),
      );
      expect(stalled.status).toBe(200);
      expect(stalled.body.errors?.[0]?.extensions).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        retryable: true,
      });
    } finally {
      scopeTo(faulty.service);
      await quick.stop();
    }
  });
});

describe('when the database fails in a way the service does not expect', () => {
  let database: FaultyDatabase;
  let services: TestService[];

  beforeAll(async () => {
    database = await startFaultyDatabase();
    services = await Promise.all([
      startTestService({ mongodbUri: database.uri }),
      startTestService({ mongodbUri: database.uri, env: { NODE_ENV: 'production' } }),
    ]);
  });

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await database.stop();
  });

  test('the client gets INTERNAL_SERVER_ERROR with a generic message; production adds no detail', async () => {
    const [dev, prod] = await database.whileFind({ errorCode: 2 }, 'alwaysOn', () =>
      Promise.all(
        services.map((service) =>
          service.graphql(
            `{ user(id: "1") { id } }`,
            {},
            {
              authorization: `Bearer ${TEST_CLIENT.token}`,
            },
          ),
        ),
      ),
    );
    for (const response of [dev, prod]) {
      expect(response.body.errors?.[0]).toMatchObject({
        message: 'Internal server error',
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      });
    }
    expect(String(dev.body.errors?.[0]?.extensions?.stacktrace)).toMatch(/MongoServerError/);
    expect(JSON.stringify(prod.body)).not.toMatch(/failCommand|MongoServerError|stacktrace/);
  });
});
