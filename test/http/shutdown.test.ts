/**
 * Stopping the service: in-flight requests finish (Apollo's drain plugin) before the server closes;
 * the process entry (src/main.ts) drains and exits 0 on SIGTERM and SIGINT, and refuses to start
 * on a bad environment or without MONGODB_URI in production. On SIGTERM readiness goes first:
 * `/ready` answers 503 at once while requests are served for SHUTDOWN_GRACE_MS, then the server
 * drains; subscribers are closed with 1012 (Service Restart).
 */
import { createClient } from 'graphql-ws';
import type { CommandStartedEvent } from 'mongodb';
import WebSocket from 'ws';
import { SERVICE_RESTART } from '../../src/graphql/subscriptions';
import { testMongoUri, uniqueDbName } from '../support/db';
import { MAIN_PROCESS_TIMEOUT_MS, startMainProcess } from '../support/main-process';
import { CLIENT_HEADERS, postGraphQL, startTestService } from '../support/service';
import { startFaultyDatabase, type FaultyDatabase } from './faulty-database';

let database: FaultyDatabase;

beforeAll(async () => {
  database = await startFaultyDatabase();
});

afterAll(async () => {
  await database.stop();
});

describe('stop()', () => {
  test('lets a request already in flight finish before the server closes', async () => {
    const service = await startTestService({ mongodbUri: database.uri });
    const answer = await database.whileFind({ blockTimeMS: 1_500 }, { times: 1 }, async () => {
      const findStarted = new Promise<void>((resolve) => {
        const onCommand = (event: CommandStartedEvent) => {
          if (event.commandName !== 'find') return;
          service.client.off('commandStarted', onCommand);
          resolve();
        };
        service.client.on('commandStarted', onCommand);
      });
      const inFlight = service.graphql(`{ user(id: "1") { id } }`);
      await findStarted;
      await service.stop();
      return inFlight;
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { user: null }, extensions: { cost: expect.any(Object) } });
    await expect(fetch(`${service.url}/health`)).rejects.toThrow();
  });

  test('closes subscription connections with 1012 Service Restart, which clients retry', async () => {
    const service = await startTestService();
    let closeCode: number | undefined;
    const connected = new Promise<void>((resolve) => {
      const client = createClient({
        url: `${service.url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: CLIENT_HEADERS,
        retryAttempts: 0,
        on: {
          connected: () => resolve(),
          closed: (event) => {
            closeCode = (event as CloseEvent).code;
          },
        },
      });
      client.subscribe(
        { query: 'subscription { userCreated { user { id } } }' },
        { next: () => {}, error: () => {}, complete: () => {} },
      );
    });
    await connected;
    await service.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closeCode).toBe(SERVICE_RESTART);
  });
});

interface ProcessOutcome {
  code: number | null;
  output: string;
}

/** Runs src/main.ts; `signal` is sent once it prints that it is ready. */
async function runMain(
  env: Record<string, string>,
  signal?: NodeJS.Signals,
): Promise<ProcessOutcome> {
  const main = startMainProcess(env);
  if (signal !== undefined)
    void main.ready.then(
      () => main.child.kill(signal),
      () => {},
    );
  const code = await main.exited;
  return { code, output: main.output() };
}

describe('the process', () => {
  const env = () => ({
    NODE_ENV: 'test',
    MONGODB_URI: testMongoUri(),
    MONGODB_DB: uniqueDbName('main'),
  });

  test.each(['SIGTERM', 'SIGINT'] as const)(
    'drains and exits 0 on %s',
    async (signal) => {
      const outcome = await runMain(env(), signal);
      expect(outcome.output).toMatch(/service ready at http:\/\/localhost:\d+\/graphql/);
      expect(outcome.output).toMatch(/BLOCK ids: 0 given back to the counter, 0 left unused/);
      expect(outcome.output).toMatch(/"msg":"stopped"/);
      // NODE_ENV=test: requests without a token get the open defaults, and the log says so.
      expect(outcome.output).toMatch(/"level":40,.*OPEN ACCESS \(NODE_ENV=test\)/);
      expect(outcome.code).toBe(0);
    },
    MAIN_PROCESS_TIMEOUT_MS + 10_000,
  );

  test(
    'refuses to start in production without MONGODB_URI',
    async () => {
      const outcome = await runMain({ NODE_ENV: 'production' });
      expect(outcome.code).toBe(1);
      expect(outcome.output).toMatch(/MONGODB_URI is required when NODE_ENV=production/);
    },
    MAIN_PROCESS_TIMEOUT_MS + 10_000,
  );

  test(
    'names every bad variable and exits 1',
    async () => {
      const outcome = await runMain({
        ...env(),
        PORT: 'eighty',
        WRITE_CONCERN: '2',
        ID_BLOCK_SIZE: '0',
        ADMIN_TOKEN: 'correct horse battery staple',
        CLIENT_TOKENS: 'billing:short',
      });
      expect(outcome.code).toBe(1);
      expect(outcome.output).toMatch(/PORT: PORT must be a whole number/);
      expect(outcome.output).toMatch(/WRITE_CONCERN: WRITE_CONCERN must be majority or 1/);
      expect(outcome.output).toMatch(/ID_BLOCK_SIZE: ID_BLOCK_SIZE must be at least 1/);
      expect(outcome.output).toMatch(/ADMIN_TOKEN: ADMIN_TOKEN must be visible ASCII/);
      expect(outcome.output).toMatch(/CLIENT_TOKENS: .*client billing must be at least 32/);
      expect(outcome.output).not.toMatch(/correct horse/);
    },
    MAIN_PROCESS_TIMEOUT_MS + 10_000,
  );

  test(
    'refuses a largest BLOCK size below the smallest',
    async () => {
      const outcome = await runMain({ ...env(), ID_BLOCK_SIZE: '500', ID_BLOCK_SIZE_MAX: '100' });
      expect(outcome.code).toBe(1);
      expect(outcome.output).toMatch(
        /ID_BLOCK_SIZE_MAX: ID_BLOCK_SIZE_MAX must be at least ID_BLOCK_SIZE/,
      );
    },
    MAIN_PROCESS_TIMEOUT_MS + 10_000,
  );
});

describe('readiness first', () => {
  const GRACE_MS = 3_000;
  const CREATE = 'mutation { createUser(input: { name: "late" }) { user { id } error { code } } }';

  test(
    'on SIGTERM /ready fails at once, requests are served for the grace, in-flight ones finish, exit 0',
    async () => {
      const main = startMainProcess({
        NODE_ENV: 'test',
        MONGODB_URI: database.uri,
        MONGODB_DB: uniqueDbName('grace'),
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
      });
      const url = await main.ready;
      expect((await fetch(`${url}/ready`)).status).toBe(200);
      // One request held in the database across the whole sequence: its find blocks past the grace.
      await database.whileFind({ blockTimeMS: GRACE_MS + 2_000 }, { times: 1 }, async () => {
        const held = postGraphQL(url, '{ user(id: "1") { id } }').then((answer) => ({
          answer,
          at: performance.now(),
        }));
        await new Promise((resolve) => setTimeout(resolve, 300));
        const signalledAt = performance.now();
        main.child.kill('SIGTERM');
        // The first probe sent after the signal that is answered 503, relative to the signal.
        let notReadyAfter: number | undefined;
        while (notReadyAfter === undefined) {
          const sentAt = performance.now();
          const probe = await fetch(`${url}/ready`);
          if (probe.status === 503) {
            expect(await probe.json()).toEqual({ status: 'shutting down' });
            notReadyAfter = sentAt - signalledAt;
          } else expect(probe.status).toBe(200);
        }
        // Readiness goes first: well within the grace, not at its end (on an idle machine the
        // first probe after the signal is already 503; a loaded one delays the signal itself).
        expect(notReadyAfter).toBeLessThan(GRACE_MS / 3);
        // Still serving: liveness, and a request sent now (new connection) is answered.
        const health = await fetch(`${url}/health`);
        expect(health.status).toBe(200);
        expect(health.headers.get('connection')).toBe('close');
        const created = await postGraphQL<{ createUser: { user: { id: string } } }>(url, CREATE);
        expect(created.status).toBe(200);
        expect(created.body.data?.createUser.user.id).toBe('1');
        const { answer, at } = await held;
        expect(answer.status).toBe(200);
        // Its find ran once its block ended, after the user created during the grace was stored.
        expect(answer.body.data).toEqual({ user: { id: '1' } });
        // It was answered only once the grace had passed: it was held across the sequence.
        expect(at - signalledAt).toBeGreaterThanOrEqual(GRACE_MS);
      });
      expect(await main.exited).toBe(0);
      expect(main.output()).toMatch(/"graceMs":3000,.*not ready; serving during the grace/);
      expect(main.output()).toMatch(/"msg":"stopped"/);
      await expect(fetch(`${url}/health`)).rejects.toThrow();
    },
    MAIN_PROCESS_TIMEOUT_MS + 10_000,
  );
});
