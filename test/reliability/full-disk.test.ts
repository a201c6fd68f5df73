/**
 * The service over a database whose disk fills, for real: the stand-in runs as its own process
 * on a 3 MB tmpfs (packages/mongodb-standin/test/tmpfs.ts; root only, reported skipped otherwise), and 8 clients
 * send `createUsers` batches of 200 through the real HTTP server until the disk is full. Then:
 * - every failed request answered SERVICE_UNAVAILABLE with `retryable: true`, none
 *   INTERNAL_SERVER_ERROR (0.3: 13 of 20 did);
 * - the stand-in is SIGKILLed and restarted on the disk, filled to the last page: every
 *   acknowledged user is stored,
 *   with its name and key (the ledger), and none twice;
 * - while the disk stays full the service still answers SERVICE_UNAVAILABLE; once the disk is
 *   grown, writes resume with no restart of either process, and nothing is lost.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { CLIENT_HEADERS, startTestService, type TestService } from '../support/service';
import { uniqueDbName } from '../support/db';
import { killed, startCli, type CliStandin } from '../../packages/mongodb-standin/test/cli-process';
import { canMountTmpfs, mountTmpfs, type Tmpfs } from '../../packages/mongodb-standin/test/tmpfs';
import { postGraphQL, type UserInput } from './client';
import { Ledger } from './ledger';

const WORKERS = 8;
const BATCH = 200;
/** bounds the load: the disk fills after about 60 batches */
const MAX_BATCHES = 300;
const REFUSALS_WANTED = 20;

let disk: Tmpfs | undefined;
let standin: CliStandin | undefined;
let service: TestService | undefined;

afterEach(async () => {
  await service?.stop();
  if (standin) await killed(standin.child);
  await disk?.unmount();
});

let batchNumber = 0;
function batch(): UserInput[] {
  const n = ++batchNumber;
  return Array.from({ length: BATCH }, (_, i) => ({
    name: `disk ${n}.${i}`,
    idempotencyKey: `disk-${n}-${i}`,
  }));
}

const CREATE_USERS = /* GraphQL */ `
  mutation CreateUsers($inputs: [CreateUserInput!]!) {
    createUsers(inputs: $inputs, strategy: COUNTER) {
      error {
        code
        retryable
      }
      results {
        user {
          id
          name
        }
        error {
          code
          retryable
        }
      }
    }
  }
`;

interface Failure {
  code?: string;
  retryable?: boolean;
}

/** Sends one batch; records its users in the ledger and every failure (request, batch, item). */
async function send(
  url: string,
  inputs: UserInput[],
  ledger: Ledger,
  failures: string[],
): Promise<boolean> {
  const { body } = await postGraphQL(url, CREATE_USERS, { inputs }, { headers: CLIENT_HEADERS });
  const answer = body as {
    data?: {
      createUsers?: {
        error: Failure | null;
        results: Array<{ user: { id: string; name: string } | null; error: Failure | null }>;
      } | null;
    } | null;
    errors?: Array<{ extensions?: Failure }>;
  };
  const describe = (where: string, failure: Failure | null | undefined) =>
    `${where} ${failure?.code} retryable=${failure?.retryable}`;
  for (const error of answer.errors ?? []) failures.push(describe('request', error.extensions));
  const payload = answer.data?.createUsers;
  if (payload?.error) failures.push(describe('batch', payload.error));
  const results = payload?.results ?? [];
  for (const result of results) if (result.error) failures.push(describe('item', result.error));
  ledger.recordOutcomes(
    inputs,
    results.map((result) =>
      result.user
        ? { user: result.user, replayed: false, code: null }
        : { user: null, replayed: false, code: result.error?.code ?? '' },
    ),
  );
  return results.length === inputs.length && results.every((result) => result.user !== null);
}

/** The failures seen, less the one honest answer for a database that cannot write. */
function dishonest(failures: string[]): string[] {
  return failures.filter((failure) => !/^\w+ SERVICE_UNAVAILABLE retryable=true$/.test(failure));
}

(canMountTmpfs ? test : test.skip)(
  'createUsers batches fill a 3 MB disk (needs root): only SERVICE_UNAVAILABLE, retryable; after kill -9 every acknowledged user is stored; writes resume once the disk grows',
  async () => {
    disk = await mountTmpfs('3m');
    const dataDir = path.join(disk.dir, 'data');
    standin = await startCli(dataDir);
    const port = standin.port;
    service = await startTestService({ mongodbUri: standin.uri, dbName: uniqueDbName('disk') });
    const ledger = new Ledger();
    const errors: string[] = [];
    let sent = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (errors.length < REFUSALS_WANTED && sent < MAX_BATCHES) {
          sent++;
          await send(service!.url, batch(), ledger, errors);
        }
      }),
    );
    expect(errors.length).toBeGreaterThanOrEqual(REFUSALS_WANTED);
    expect(ledger.size).toBeGreaterThan(2_000);
    expect(dishonest(errors)).toEqual([]);

    await killed(standin.child);
    await disk.fill(); // what the failed batches freed is taken: the disk stays full
    standin = await startCli(dataDir, port);
    const reader = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 5_000 });
    try {
      expect(await ledger.problems(reader.db(service.dbName))).toEqual([]);

      // the disk is still full: the service, not restarted, answers SERVICE_UNAVAILABLE
      const refused: string[] = [];
      expect(await send(service.url, batch(), ledger, refused)).toBe(false);
      expect(refused.length).toBeGreaterThan(0);
      expect(dishonest(refused)).toEqual([]);

      disk.resize('16m');
      let resumed = false;
      for (let attempt = 0; attempt < 50 && !resumed; attempt++) {
        const retried: string[] = [];
        resumed = await send(service.url, batch(), ledger, retried);
        expect(dishonest(retried)).toEqual([]);
        if (!resumed) await sleep(100);
      }
      expect(resumed).toBe(true);
      expect(await ledger.problems(reader.db(service.dbName))).toEqual([]);
    } finally {
      await reader.close();
    }
  },
  240_000,
);
