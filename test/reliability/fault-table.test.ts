/**
 * The fault table: what one creation request does when MongoDB fails under it, per strategy
 * (the rows are in fault-cases.ts).
 *
 * Each case starts a fresh service instance (a fresh BLOCK allocator, so the BLOCK cases really
 * refill), sets one `failCommand` fail point (scoped to that instance's appName on the shared
 * database, or on a private stand-in when scoping cannot work: see fail-points.ts), checks that
 * it fired, sends one request through the real HTTP server, clears the fail point and sends the
 * same request twice more with the same idempotency keys. The promises checked every time:
 * - the first attempt ends in success or a clear error (`extensions.code` from the case's list,
 *   never INTERNAL_SERVER_ERROR or a 5xx), and a blocked database never holds it past the block;
 * - the retries succeed and agree on one user per key, which is also the first attempt's when that
 *   one succeeded, and the database holds exactly one user per key;
 * - across all cases so far (one database for the whole file): no id acknowledged twice, every
 *   acknowledged user stored, the `userid` counter never behind an id it issued.
 * Where the server supports retryable writes (a replica set), the driver retries one
 * RetryableWriteError or dropped connection by itself, and those cases must simply succeed.
 *
 * Budgets are on, in windows of a second, so a case's charges reach the database again and again
 * while its fault is set: they go through the budgets' client of their own (src/components.ts),
 * whose appName the fail point is not scoped to, so each case checks that they reached it and that
 * none of them failed. (On a private stand-in, where fail points cannot be scoped and so would fail
 * every client's commands, budgets are off.)
 */
import { sentKeyFilter } from '../support/keys';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db, MongoClient } from 'mongodb';
import { uniqueDbName } from '../support/db';
import { startTestService, type TestService } from '../support/service';
import { clearFailPoint, faultServer, setFailPoint, type FaultServer } from './fail-points';
import { BATCH_SIZE, cases, GROUPED_REQUESTS, type FaultCase } from './fault-cases';
import { Ledger } from './ledger';
import { sendCreation, type CreationResult, type ItemOutcome, type UserInput } from './client';
import { ID_STRATEGIES, strategiesWhere } from '../../src/strategies';
import { DUPLICATE_KEY } from '../../src/database';

/** The service's bound on each database call in this file: short, so blocked cases stay quick. */
const DB_TIMEOUT_MS = 1_500;
/** How many of a concurrent case's retries are in flight at once (a fault-free, modest load). */
const RETRY_CONCURRENCY = 10;
/**
 * Every case's caller (no token: outside production, the open-access client) may create a million
 * users a second: no case is refused, and each window's first charge takes a new lease from the
 * database.
 */
const BUDGETS = 'usersCreated.client=1000000/1';

function inputsFor(testCase: FaultCase): UserInput[] {
  const count = testCase.concurrency ?? (testCase.operation === 'createUser' ? 1 : BATCH_SIZE);
  const tag = randomUUID();
  return Array.from({ length: count }, (_, i) => ({
    name: `fault ${testCase.strategy} ${i}`,
    idempotencyKey: `fault-${tag}-${i}`,
  }));
}

/** What one send of a case got: one item per input, the worst status, the slowest answer. */
interface CaseResult {
  results: CreationResult[];
  items: ItemOutcome[];
  worstStatus: number;
  slowestMs: number;
}

/** Sends the case: one createUser or createUsers, or `concurrency` single createUser requests, `inFlight` at a time. */
async function sendCase(
  url: string,
  testCase: FaultCase,
  inputs: UserInput[],
  inFlight = inputs.length,
): Promise<CaseResult> {
  const results: CreationResult[] = [];
  if (testCase.concurrency === undefined) {
    results.push(await sendCreation(url, testCase.operation, inputs, testCase.strategy));
  } else {
    for (let start = 0; start < inputs.length; start += inFlight) {
      const wave = inputs.slice(start, start + inFlight);
      results.push(
        ...(await Promise.all(
          wave.map((input) => sendCreation(url, 'createUser', [input], testCase.strategy)),
        )),
      );
    }
  }
  return {
    results,
    items: results.flatMap((result) => result.items),
    worstStatus: Math.max(...results.map((result) => result.http.status)),
    slowestMs: Math.max(...results.map((result) => result.http.elapsedMs)),
  };
}

/** The appName the service's client announces; no other file's service uses this database. */
function appNameOf(service: TestService): string {
  const { appName } = service.client.options;
  if (appName === undefined) throw new Error('the test service has no appName to scope to');
  return appName;
}

/**
 * The commands `client` completed, and those that failed (name and message), from now on; but a
 * duplicate key, which is how rate-limiter-flexible opens a new window over an ended one (its
 * upsert meets the old document of the key, and it updates that instead).
 */
function watchCommands(client: MongoClient): { succeeded: number; failed: string[] } {
  const seen = { succeeded: 0, failed: [] as string[] };
  client.on('commandSucceeded', () => (seen.succeeded += 1));
  client.on('commandFailed', (event) => {
    if ((event.failure as { code?: unknown }).code === DUPLICATE_KEY) return;
    seen.failed.push(`${event.commandName}: ${String(event.failure)}`);
  });
  return seen;
}

/** A replica set or mongos: the driver then retries one retryable write error by itself. */
async function supportsRetryableWrites(client: MongoClient): Promise<boolean> {
  const hello = await client.db('admin').command({ hello: 1 });
  const replicated = typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
  return replicated && typeof hello.logicalSessionTimeoutMinutes === 'number';
}

describe('fault table: every fault ends in success or a clear error, and nothing is lost or issued twice', () => {
  const dbName = uniqueDbName();
  const ledger = new Ledger();
  let client: MongoClient;
  let db: Db;
  let server: FaultServer;
  let retryableWrites = false;

  beforeAll(async () => {
    server = await faultServer();
    client = server.client;
    db = client.db(dbName);
    retryableWrites = await supportsRetryableWrites(client);
  });

  afterAll(async () => {
    await server?.stop();
  });

  test('the table covers at least 15 cases and every strategy and createUsers', () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
    const covered = new Set(cases.map((c) => `${c.operation} ${c.strategy}`));
    for (const strategy of ID_STRATEGIES) {
      expect(covered).toContain(`createUser ${strategy}`);
      expect(covered).toContain(`createUsers ${strategy}`);
    }
  });

  test('every strategy that groups creations has concurrent cases with a fault on the insert they share', () => {
    for (const strategy of strategiesWhere('groupsCreations')) {
      const grouped = cases.filter(
        (c) =>
          c.strategy === strategy &&
          c.operation === 'createUser' &&
          c.concurrency === GROUPED_REQUESTS &&
          c.fault.failCommands.includes('insert'),
      );
      expect({ strategy, grouped: grouped.length > 0 }).toEqual({ strategy, grouped: true });
    }
  });

  test.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
    const service = await startTestService({
      dbName,
      mongodbUri: server.mongodbUri,
      env: { DB_TIMEOUT_MS: String(DB_TIMEOUT_MS), BUDGETS: server.scoped ? BUDGETS : 'off' },
    });
    const budgetCommands = server.scoped ? watchCommands(service.budgetsClient) : null;
    try {
      // On a private server the service's appName is not seen by the server: see fail-points.ts.
      const scope = server.scoped ? appNameOf(service) : null;
      const inputs = inputsFor(testCase);
      const faultSetAt = performance.now();
      const budgetCommandsBefore = budgetCommands?.succeeded ?? 0;
      await setFailPoint(client, scope, testCase.mode, testCase.fault);
      let first: CaseResult;
      let fired: number;
      try {
        first = await sendCase(service.url, testCase, inputs);
      } finally {
        fired = await clearFailPoint(client, scope);
      }
      const budgetChargesUnderFault = (budgetCommands?.succeeded ?? 0) - budgetCommandsBefore;
      // The fault really hit this request (else the case proves nothing).
      expect(fired).toBeGreaterThanOrEqual(1);

      // The first attempt: success or a clear error, never a crash and never held by the block.
      expect(first.worstStatus).toBeLessThan(500);
      const mustSucceed =
        testCase.allowedCodes.length === 0 ||
        (testCase.retriedByDriver === true && retryableWrites);
      const allowed = mustSucceed ? [] : testCase.allowedCodes;
      const unclear = first.results.flatMap((result) =>
        result.items
          .filter((item) => item.code !== null && !allowed.includes(item.code))
          .map((item) => `${item.code}: ${JSON.stringify(result.http.body).slice(0, 400)}`),
      );
      expect({ unclear: unclear.length, first: unclear.slice(0, 3) }).toEqual({
        unclear: 0,
        first: [],
      });
      // One request whose own command is blocked is answered before the block ends.
      const blockMs = testCase.fault.blockTimeMS ?? 0;
      if (blockMs > 0 && testCase.concurrency === undefined) {
        expect(first.slowestMs).toBeLessThan(blockMs);
      }
      ledger.recordOutcomes(inputs, first.items);

      // Retries with the same keys: both succeed and agree on one user per key.
      const retry = await sendCase(service.url, testCase, inputs, RETRY_CONCURRENCY);
      const again = await sendCase(service.url, testCase, inputs, RETRY_CONCURRENCY);
      for (const result of [retry, again]) {
        expect(result.items.map((item) => item.code)).toEqual(inputs.map(() => null));
        ledger.recordOutcomes(inputs, result.items);
      }
      const ids = (result: CaseResult) => result.items.map((item) => item.user?.id ?? null);
      expect(ids(again)).toEqual(ids(retry));
      first.items.forEach((item, i) => {
        if (item.user) expect(retry.items[i].user?.id).toBe(item.user.id);
      });
      if (testCase.operation === 'createUser') {
        expect(again.items.map((item) => item.replayed)).toEqual(inputs.map(() => true));
      }

      // A write the client gave up on may still land when the block ends; judge after that.
      await sleep(Math.max(0, faultSetAt + blockMs + 500 - performance.now()));
      const keys = inputs.map((input) => input.idempotencyKey as string);
      const perKey: Record<string, number> = {};
      for (const key of keys) {
        perKey[key] = await db
          .collection('users')
          .countDocuments({ idempotencyKey: sentKeyFilter(key) }, { maxTimeMS: 20_000 });
      }
      expect(perKey).toEqual(Object.fromEntries(keys.map((key) => [key, 1])));
      expect(await ledger.problems(db)).toEqual([]);
      if (budgetCommands !== null) {
        // The budgets were charged in the database while the fault was set, and none failed.
        expect(budgetChargesUnderFault).toBeGreaterThan(0);
        expect(budgetCommands.failed).toEqual([]);
      }
    } finally {
      await service.stop();
    }
  });
});
