/**
 * The service through a database outage, on a private stand-in this file can stop, restart and
 * give server-wide fail points without touching other test files: /health stays up, /ready and
 * GraphQL say the database is unavailable, a request never outlives REQUEST_TIMEOUT_MS, and the
 * service serves again once the database is back, without a restart.
 */
import { MongoClient } from 'mongodb';
import { startStandin, type RunningStandin } from '../../src/standin';
import { setFailPoint, clearFailPoint } from '../reliability/fail-points';
import { startTestService, type TestService } from '../support/service';

const CREATE_USER = `mutation Create($name: String!) { createUser(input: { name: $name }) { user { id } } }`;
const READY_POLLS = 60;
const POLL_INTERVAL_MS = 500;

const get = (url: string) => fetch(url, { signal: AbortSignal.timeout(15_000) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  let standin: RunningStandin;
  let admin: MongoClient;
  let service: TestService;

  beforeAll(async () => {
    standin = await startStandin({ log: () => {} });
    admin = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 5_000 });
    service = await startTestService({
      mongodbUri: standin.uri,
      env: { REQUEST_TIMEOUT_MS: '1000', DB_TIMEOUT_MS: '20000' },
    });
  });

  afterAll(async () => {
    await service.stop();
    await admin.close();
    await standin.stop();
  });

  test('a request is answered 503 SERVICE_UNAVAILABLE at REQUEST_TIMEOUT_MS, and the next one succeeds', async () => {
    await setFailPoint(
      admin,
      null,
      { times: 1 },
      { failCommands: ['find'], blockConnection: true, blockTimeMS: 4_000 },
    );
    try {
      const stalled = await service.graphql(`{ user(id: "1") { id } }`);
      expect(stalled.status).toBe(503);
      expect(stalled.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await clearFailPoint(admin);
    }
    const next = await service.graphql(`{ user(id: "1") { id } }`);
    expect(next.status).toBe(200);
    expect(next.body).toEqual({ data: { user: null } });
  });

  test('a database stalled past DB_TIMEOUT_MS is SERVICE_UNAVAILABLE, not a hang', async () => {
    const quick = await startTestService({
      mongodbUri: standin.uri,
      env: { REQUEST_TIMEOUT_MS: '30000', DB_TIMEOUT_MS: '1000' },
    });
    await setFailPoint(admin, null, 'alwaysOn', {
      failCommands: ['find'],
      blockConnection: true,
      blockTimeMS: 3_000,
    });
    try {
      const stalled = await quick.graphql(`{ user(id: "1") { id } }`);
      expect(stalled.status).toBe(200);
      expect(stalled.body.errors?.[0]?.extensions).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        retryable: true,
      });
    } finally {
      await clearFailPoint(admin);
      await quick.stop();
    }
  });
});
