/**
 * Stopping the service: in-flight requests finish (Apollo's drain plugin) before the server closes;
 * the process entry (src/main.ts) drains and exits 0 on SIGTERM and SIGINT, and refuses to start
 * on a bad environment or without MONGODB_URI in production.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { CommandStartedEvent } from 'mongodb';
import { testMongoUri, uniqueDbName } from '../support/db';
import { startTestService } from '../support/service';
import { startFaultyDatabase, type FaultyDatabase } from './faulty-database';

const ROOT = path.resolve(__dirname, '..', '..');
const PROCESS_TIMEOUT_MS = 60_000;

describe('stop()', () => {
  let database: FaultyDatabase;

  beforeAll(async () => {
    database = await startFaultyDatabase();
  });

  afterAll(async () => {
    await database.stop();
  });

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
});

interface ProcessOutcome {
  code: number | null;
  output: string;
}

/** Runs src/main.ts; `signal` is sent once it prints that it is ready. */
function runMain(env: Record<string, string>, signal?: NodeJS.Signals): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    // tsx's loader in this very process: the `tsx` CLI would stand between the signal and main.ts
    // and SIGKILL it when it does not confirm the relay within 30 ms (as on a busy machine).
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'main.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const killer = setTimeout(() => child.kill('SIGKILL'), PROCESS_TIMEOUT_MS);
    const collect = (chunk: Buffer) => {
      const before = output;
      output += chunk.toString();
      if (signal && !before.includes('service ready at') && output.includes('service ready at')) {
        child.kill(signal);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    });
  });
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
    PROCESS_TIMEOUT_MS + 10_000,
  );

  test(
    'refuses to start in production without MONGODB_URI',
    async () => {
      const outcome = await runMain({ NODE_ENV: 'production' });
      expect(outcome.code).toBe(1);
      expect(outcome.output).toMatch(/MONGODB_URI is required when NODE_ENV=production/);
    },
    PROCESS_TIMEOUT_MS + 10_000,
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
    PROCESS_TIMEOUT_MS + 10_000,
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
    PROCESS_TIMEOUT_MS + 10_000,
  );
});
