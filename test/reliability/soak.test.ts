/**
 * The concurrency soak: 4 service instances on one database, 32 concurrent clients each, mixed
 * strategies and batch sizes, idempotent retries, for a bounded time.
 *
 * Duration: `SOAK_SECONDS` when set; otherwise 60 s under `npm run soak` (npm sets
 * `npm_lifecycle_event=soak` for that script) and 6 s under `npm test` or a bare `npx jest`.
 *
 * What the clients do: each picks a strategy (COUNTER, BLOCK, OPTIMISTIC_LOOP) and either one
 * createUser or a small createUsers batch, mostly with idempotency keys; some requests are sent
 * twice with the same key, to two different instances, either at the same time or one after the
 * other; a retryable error (ID_CONTENTION, SERVICE_UNAVAILABLE) is retried with the same key. A
 * tenth of the inputs ask for one of a few shared emails, so inserts are refused (and their ids
 * given back) all the time, concurrently with everything else.
 * Promises checked at the end, against the database itself (`Ledger`): zero ids issued twice, zero
 * acknowledged users lost, one user per idempotency key, the `userid` counter never behind an id
 * COUNTER or BLOCK issued; and no response other than a user, a retryable error, or (for a shared
 * email) EMAIL_TAKEN. The strategies that group creations (`groupsCreations`: BLOCK's shared
 * inserts, TRANSACTION's shared transactions) must have grouped in the run: some insert carried
 * the documents of several requests, so the promises held for groups too.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { CommandStartedEvent, MongoClient } from 'mongodb';
import { connectTestClient, uniqueDbName } from '../support/db';
import { startTestService, type TestService } from '../support/service';
import { Ledger } from './ledger';
import { sendCreation, type CreationResult, type Strategy, type UserInput } from './client';
import { ID_STRATEGIES, strategiesWhere } from '../../src/strategies';

const INSTANCES = 4;
const CLIENTS_PER_INSTANCE = 32;
const STRATEGIES: readonly Strategy[] = ID_STRATEGIES;
const RETRYABLE = new Set(['ID_CONTENTION', 'SERVICE_UNAVAILABLE']);
const MAX_RETRIES = 20;
const RETRY_BACKOFF_MS = 50;
/** Retries of requests still open at the deadline may start this much later. */
const RETRY_GRACE_MS = 5_000;
/**
 * 128 clients and 4 instances in one process saturate a small machine: requests then wait for
 * the process to read them, before the service's own REQUEST_TIMEOUT_MS starts. The soak checks
 * correctness under that saturation; answering within the timeout is the outage test's promise.
 */
const SATURATED_HANG_LIMIT_MS = 120_000;
const BATCH_SIZE = 3;
/** Inputs that ask for one of SHARED_EMAILS addresses, so refused inserts happen all the time. */
const SHARED_EMAIL_SHARE = 0.1;
const SHARED_EMAILS = 20;

function soakSeconds(): number {
  const configured = process.env.SOAK_SECONDS;
  if (configured === undefined || configured === '') {
    return process.env.npm_lifecycle_event === 'soak' ? 60 : 6;
  }
  const seconds = Number(configured);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new Error(`SOAK_SECONDS must be a positive number of seconds, got ${configured}`);
  }
  return seconds;
}

const SECONDS = soakSeconds();

/** Figures for the closing note, and every response that was neither a user nor retryable. */
class Tally {
  requests = 0;
  duplicateSends = 0;
  retries = 0;
  replays = 0;
  unresolved = 0;
  emailsRefused = 0;
  readonly retryableErrors = new Map<string, number>();
  readonly usersByStrategy = new Map<Strategy, number>();
  readonly unexpected: string[] = [];
  readonly latenciesMs: number[] = [];

  /** The q-quantile of the response times, in ms. */
  latency(q: number): number {
    const sorted = [...this.latenciesMs].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  }

  count(map: Map<string, number>, key: string, by = 1): void {
    map.set(key, (map.get(key) ?? 0) + by);
  }
}

/** One of a few emails many requests ask for: all but the first are refused (and give back their id). */
function sharedEmail(): string {
  return `shared-${Math.floor(Math.random() * SHARED_EMAILS)}@soak.example`;
}

type Delivery = 'once' | 'twice-concurrently' | 'twice-in-sequence';

interface Plan {
  strategy: Strategy;
  inputs: UserInput[];
  delivery: Delivery;
}

function planRequest(label: string): Plan {
  const strategy = STRATEGIES[Math.floor(Math.random() * STRATEGIES.length)];
  const size = Math.random() < 0.15 ? BATCH_SIZE : 1;
  const keyed = Math.random() < 0.85;
  const tag = randomUUID();
  const inputs = Array.from({ length: size }, (_, i) => ({
    name: `${label} ${i}`,
    ...(keyed ? { idempotencyKey: `soak-${tag}-${i}` } : {}),
    ...(Math.random() < SHARED_EMAIL_SHARE ? { email: sharedEmail() } : {}),
  }));
  const roll = Math.random();
  const delivery: Delivery = !keyed
    ? 'once'
    : roll < 0.1
      ? 'twice-concurrently'
      : roll < 0.2
        ? 'twice-in-sequence'
        : 'once';
  return { strategy, inputs, delivery };
}

/**
 * The strategy of a `users` insert and how many requests its documents came from (a request's
 * inputs are named `<label> <i>`, so the name without its last word names the request); null for
 * any other command.
 */
function requestsInInsert(event: CommandStartedEvent): { strategy: string; count: number } | null {
  if (event.commandName !== 'insert' || event.command.insert !== 'users') return null;
  const docs = event.command.documents as Array<{ name: string; createdWith: string }>;
  if (docs.length === 0) return null;
  const labels = new Set(docs.map((doc) => doc.name.slice(0, doc.name.lastIndexOf(' '))));
  return { strategy: docs[0].createdWith, count: labels.size };
}

describe('soak: concurrent instances, strategies and retries on one database', () => {
  const dbName = uniqueDbName();
  const ledger = new Ledger();
  const tally = new Tally();
  let client: MongoClient;
  let services: TestService[] = [];

  beforeAll(async () => {
    client = await connectTestClient();
    services = await Promise.all(
      Array.from({ length: INSTANCES }, () => startTestService({ dbName })),
    );
  });

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await client?.close();
  });

  /**
   * Sends one plan to `service` until it holds no retryable error, retrying (with jitter) only
   * until RETRY_GRACE_MS past the deadline, so the run stays bounded while answers that arrive
   * after the deadline are still retried; records what came back.
   */
  async function deliver(service: TestService, plan: Plan, deadline: number): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      tally.requests += 1;
      let result: CreationResult;
      try {
        result = await sendCreation(
          service.url,
          plan.inputs.length === 1 ? 'createUser' : 'createUsers',
          plan.inputs,
          plan.strategy,
          { timeoutMs: SATURATED_HANG_LIMIT_MS },
        );
      } catch (err) {
        tally.unexpected.push(`${plan.strategy}: request failed: ${String(err)}`);
        return;
      }
      tally.latenciesMs.push(result.http.elapsedMs);
      ledger.recordOutcomes(plan.inputs, result.items);
      let retryable = false;
      for (const [index, item] of result.items.entries()) {
        if (item.user) {
          if (item.replayed) tally.replays += 1;
        } else if (item.code === 'EMAIL_TAKEN' && plan.inputs[index].email !== undefined) {
          tally.emailsRefused += 1;
        } else if (RETRYABLE.has(item.code)) {
          tally.count(tally.retryableErrors, item.code);
          retryable = true;
        } else {
          tally.unexpected.push(
            `${plan.strategy}: HTTP ${result.http.status}, ${item.code}: ${JSON.stringify(result.http.body).slice(0, 300)}`,
          );
        }
      }
      if (!retryable) return;
      if (attempt === MAX_RETRIES || performance.now() >= deadline + RETRY_GRACE_MS) {
        tally.unresolved += 1;
        return;
      }
      tally.retries += 1;
      await sleep(RETRY_BACKOFF_MS * (1 + Math.random()));
    }
  }

  async function runClient(instance: number, clientIndex: number, deadline: number) {
    const own = services[instance];
    const other = services[(instance + 1 + (clientIndex % (INSTANCES - 1))) % INSTANCES];
    for (let n = 0; performance.now() < deadline; n += 1) {
      const plan = planRequest(`soak ${instance}.${clientIndex}.${n}`);
      if (plan.delivery === 'twice-concurrently') {
        tally.duplicateSends += 1;
        await Promise.all([deliver(own, plan, deadline), deliver(other, plan, deadline)]);
      } else if (plan.delivery === 'twice-in-sequence') {
        tally.duplicateSends += 1;
        await deliver(own, plan, deadline);
        await deliver(other, plan, deadline);
      } else {
        await deliver(own, plan, deadline);
      }
    }
  }

  test(
    `for ${SECONDS} s: zero duplicate ids, zero lost users, one user per key, counter never behind`,
    async () => {
      const loopDelay = monitorEventLoopDelay({ resolution: 20 });
      loopDelay.enable();
      const grouped = new Map<string, number>();
      const watchGroups = (event: CommandStartedEvent) => {
        const requests = requestsInInsert(event);
        if (requests !== null && requests.count > 1) {
          grouped.set(requests.strategy, (grouped.get(requests.strategy) ?? 0) + 1);
        }
      };
      for (const service of services) service.client.on('commandStarted', watchGroups);
      const started = performance.now();
      const deadline = started + SECONDS * 1000;
      try {
        await Promise.all(
          services.flatMap((_, instance) =>
            Array.from({ length: CLIENTS_PER_INSTANCE }, (_, c) =>
              runClient(instance, c, deadline),
            ),
          ),
        );
      } finally {
        for (const service of services) service.client.off('commandStarted', watchGroups);
      }
      const elapsedSeconds = (performance.now() - started) / 1000;
      loopDelay.disable();

      const db = client.db(dbName);
      const stored = await db
        .collection<{ createdWith: Strategy }>('users')
        .aggregate<{ _id: Strategy; count: number }>(
          [{ $group: { _id: '$createdWith', count: { $sum: 1 } } }],
          { maxTimeMS: 20_000 },
        )
        .toArray();
      for (const { _id, count } of stored) tally.usersByStrategy.set(_id, count);
      const storedTotal = stored.reduce((sum, s) => sum + s.count, 0);

      console.log(
        [
          `soak: ${SECONDS} s, ${INSTANCES} instances x ${CLIENTS_PER_INSTANCE} clients on one database`,
          `  requests ${tally.requests} (${(tally.requests / elapsedSeconds).toFixed(0)}/s), users acknowledged ${ledger.size}, stored ${storedTotal} (${(storedTotal / elapsedSeconds).toFixed(0)} users/s)`,
          `  by strategy: ${STRATEGIES.map((s) => `${s} ${tally.usersByStrategy.get(s) ?? 0}`).join(', ')}`,
          `  response time p50 ${tally.latency(0.5).toFixed(0)} ms, p99 ${tally.latency(0.99).toFixed(0)} ms, max ${tally.latency(1).toFixed(0)} ms; event-loop delay in this process p99 ${(loopDelay.percentile(99) / 1e6).toFixed(0)} ms; load average ${loadavg()[0].toFixed(1)}`,
          `  taken emails refused ${tally.emailsRefused}; inserts holding several requests' users: ${[...grouped].map(([s, n]) => `${s} ${n}`).join(', ') || 'none'}`,
          `  sent twice with one key ${tally.duplicateSends}, replays ${tally.replays}, retries ${tally.retries} (${[...tally.retryableErrors].map(([code, n]) => `${code} ${n}`).join(', ') || 'none'}), unresolved (retries exhausted or past the grace) ${tally.unresolved}`,
        ].join('\n'),
      );

      expect(tally.unexpected.slice(0, 20)).toEqual([]);
      expect(await ledger.problems(db)).toEqual([]);
      for (const strategy of STRATEGIES) {
        expect(tally.usersByStrategy.get(strategy) ?? 0).toBeGreaterThan(0);
      }
      expect(tally.replays).toBeGreaterThan(0);
      for (const strategy of strategiesWhere('groupsCreations')) {
        expect({ strategy, grouped: (grouped.get(strategy) ?? 0) > 0 }).toEqual({
          strategy,
          grouped: true,
        });
      }
    },
    SECONDS * 1000 + RETRY_GRACE_MS + SATURATED_HANG_LIMIT_MS + 60_000,
  );
});
