/**
 * The kill run (issue 22's proof of no holes): K real service processes on one database, C
 * clients each, for S seconds, with `failCommand` fail points set one after another, one instance
 * killed with SIGKILL in the middle of the load and started again; then the invariants, read from
 * the database. The workloads (./kill-run-workloads.ts): `createUser` with TRANSACTION or BLOCK,
 * and a gapless sequence's allocations with confirmations, releases and expiries.
 * `test/reliability/kill-run.test.ts` runs it small and asserts; `npm run bench:faults` runs it at
 * issue 22's scale (2 × 32 clients, 30 s) and prints the figures.
 *
 * The database is a private stand-in (the run's fail points and kill touch nothing else) whose
 * transaction lifetime is short: a process killed in a transaction leaves it open, holding the
 * `userid` counter, until the server aborts it after that lifetime (mongod's
 * `transactionLifetimeLimitSeconds`, 60 s by default; set it lower for a run on a real replica
 * set), and until then every other instance's transaction conflicts on the counter.
 *
 * A workload whose sequence restarts every year (`newYear`) runs with the stand-in's clock set
 * (its `clock` option): an hour before that zone's New Year's Eve midnight while the run sets up,
 * then, once the load starts, so that midnight falls half a second before instance 0 is killed.
 *
 * Fail points are scoped to the service's `appName` (`sequential-ids`), so the run's own client
 * never meets them; each is set `{ times: n }` for `failPointEveryMs`, then cleared, and how often
 * it fired is counted. Clients send every request with an idempotency key (TRANSACTION) and retry
 * transport failures and retryable codes with the same key, on the other instance while theirs is
 * down; every wait is bounded (requests 30 s, at most `MAX_ATTEMPTS` sends per operation).
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { startStandin, type RunningStandin } from 'mongodb-standin';
import { startServiceFleet, type ServiceFleet } from '../../bench/service-processes';
import { SERVICE_APP_NAME } from '../../src/database';
import { clearFailPoint, setFailPoint, type FailCommandData } from './fail-points';
import { postGraphQL, type GraphQLResultLike } from './client';
import {
  RunContext,
  WORKLOADS,
  type ServiceSlot,
  type Workload,
  type WorkloadName,
  type WorkloadReport,
} from './kill-run-workloads';

const STATS_POLL_MS = 1_000;
const RESTART_DELAY_MS = 500;
const SOCKET_TIMEOUT_MS = 30_000;

export interface KillRunOptions {
  workload: WorkloadName;
  instances: number;
  clientsPerInstance: number;
  seconds: number;
  /** When instance 0 is killed, as a share of `seconds`. */
  killAt: number;
  failPointEveryMs: number;
  /** The stand-in's transaction lifetime (mongod's transactionLifetimeLimitSeconds). */
  transactionLifetimeMs: number;
  /** A gapless sequence's hold, in whole seconds. */
  holdSeconds: number;
  log?: (line: string) => void;
}

/** The kill run of the tests: 2 processes × 8 clients for 6 s, small enough for `npm test`. */
export const SMALL_KILL_RUN: Omit<KillRunOptions, 'workload'> = {
  instances: 2,
  clientsPerInstance: 8,
  seconds: 6,
  killAt: 0.4,
  failPointEveryMs: 300,
  transactionLifetimeMs: 3_000,
  holdSeconds: 1,
};

/** One fail point of the rotation: what it fails, and how many commands it failed in all. */
interface FaultRow {
  name: string;
  data: FailCommandData;
  times: number;
}

export interface KillRunReport {
  workload: WorkloadName;
  instances: number;
  clients: number;
  /** From the first request to the last client done (deadline plus its open retries). */
  seconds: number;
  loadAverage: { start: number; end: number };
  /** Sends by outcome: a result, a code, or TRANSPORT (no answer: refused, reset, timed out). */
  answers: Record<string, number>;
  /** Acknowledgements in each second of the run (the kill's and the fail points' dents show). */
  timeline: number[];
  kill: { pid: number; atSeconds: number; inFlight: number; restartedAfterSeconds: number | null };
  failPoints: Array<{ name: string; fired: number }>;
  /** Transaction retries and write conflicts per strategyStats, last read from each process. */
  transactionStats: { usersCreated: number; transactionRetries: number; writeConflicts: number };
  result: WorkloadReport;
  /** Every broken promise; empty when the run held all of them. */
  problems: string[];
}

/** One service process, in a fleet of its own so that it can be killed and replaced alone. */
interface Instance extends ServiceSlot {
  pid: number;
  fleet: ServiceFleet;
}

async function startInstance(uri: string, dbName: string): Promise<Instance> {
  const fleet = await startServiceFleet({
    instances: 1,
    mongodbUri: uri,
    dbName,
    blockSize: 100,
    blockSizeMax: 10_000,
    nodeArgs: ['--import', 'tsx'],
    entry: join(__dirname, '..', '..', 'src', 'main.ts'),
  });
  const [process] = fleet.processes;
  return { url: process.url, pid: process.pid, headers: fleet.headers, fleet };
}

/** The faults of the rotation, each set on every command the workload writes with. */
const FAULTS: Array<{ name: string; data: Omit<FailCommandData, 'failCommands'>; times: number }> =
  [
    { name: 'WriteConflict (112)', data: { errorCode: 112 }, times: 3 },
    { name: 'connection closed', data: { closeConnection: true }, times: 2 },
    { name: 'ShutdownInProgress (91)', data: { errorCode: 91 }, times: 3 },
    { name: 'InternalError (1)', data: { errorCode: 1 }, times: 1 },
  ];

/**
 * The rotation of fail points: each fault on each command, the commands taking turns, so that a
 * short run meets every command early.
 */
function faultRows(workload: Workload): FaultRow[] {
  return FAULTS.flatMap((fault) =>
    workload.faultedCommands.map((command) => ({
      name: `${command}: ${fault.name}`,
      data: { failCommands: [command], ...fault.data },
      times: fault.times,
    })),
  );
}

/** Sets the rotation's fail points one after another until `stopped`; returns what each failed. */
async function rotateFailPoints(
  admin: MongoClient,
  rows: FaultRow[],
  everyMs: number,
  stopped: () => boolean,
): Promise<Map<string, number>> {
  const fired = new Map(rows.map((row) => [row.name, 0]));
  for (let i = 0; !stopped(); i += 1) {
    const row = rows[i % rows.length];
    await setFailPoint(admin, SERVICE_APP_NAME, { times: row.times }, row.data);
    await sleep(everyMs);
    const count = await clearFailPoint(admin, SERVICE_APP_NAME);
    fired.set(row.name, (fired.get(row.name) ?? 0) + count);
  }
  return fired;
}

interface TransactionStats {
  usersCreated: number;
  transactionRetries: number;
  writeConflicts: number;
}

const STATS = `{ strategyStats { strategy usersCreated transactionRetries writeConflicts } }`;

/** TRANSACTION's line of one process's `strategyStats`, or null when it does not answer. */
async function transactionStatsOf(instance: Instance): Promise<TransactionStats | null> {
  const http = await postGraphQL(
    instance.url,
    STATS,
    {},
    { headers: instance.headers, timeoutMs: 5_000 },
  ).catch(() => null);
  const stats = (http?.body as GraphQLResultLike | undefined)?.data?.strategyStats as
    Array<TransactionStats & { strategy: string }> | undefined;
  const line = stats?.find((s) => s.strategy === 'TRANSACTION');
  return line
    ? {
        usersCreated: line.usersCreated,
        transactionRetries: line.transactionRetries,
        writeConflicts: line.writeConflicts,
      }
    : null;
}

/** The last figures read from each process (a killed one keeps what it said before dying). */
class StatsWatch {
  private readonly last = new Map<number, TransactionStats>();

  async poll(slots: ReadonlyArray<Instance | null>): Promise<void> {
    await Promise.all(
      slots.map(async (instance) => {
        if (instance === null) return;
        const stats = await transactionStatsOf(instance);
        if (stats !== null) this.last.set(instance.pid, stats);
      }),
    );
  }

  total(): TransactionStats {
    const sum = { usersCreated: 0, transactionRetries: 0, writeConflicts: 0 };
    for (const stats of this.last.values()) {
      sum.usersCreated += stats.usersCreated;
      sum.transactionRetries += stats.transactionRetries;
      sum.writeConflicts += stats.writeConflicts;
    }
    return sum;
  }
}

/** Kills instance 0 with SIGKILL at `atMs`, then starts a new process in its slot. */
async function killAndRestart(
  context: RunContext<Instance>,
  startedAt: number,
  atMs: number,
  start: () => Promise<Instance>,
): Promise<KillRunReport['kill']> {
  await sleep(Math.max(0, atMs - (performance.now() - startedAt)));
  const victim = context.slots[0] as Instance | null;
  if (victim === null) throw new Error('instance 0 is not running');
  const inFlight = context.inFlightAt(0);
  const killedAt = performance.now();
  process.kill(victim.pid, 'SIGKILL');
  context.slots[0] = null;
  await victim.fleet.stop(); // waits for the exit; sends nothing more to a killed process
  await sleep(RESTART_DELAY_MS);
  const replacement = await start();
  context.slots[0] = replacement;
  return {
    pid: victim.pid,
    atSeconds: (killedAt - startedAt) / 1000,
    inFlight,
    restartedAfterSeconds: (performance.now() - killedAt) / 1000,
  };
}

export async function runKillRun(options: KillRunOptions): Promise<KillRunReport> {
  const log = options.log ?? (() => undefined);
  const workload = WORKLOADS[options.workload];
  const loadStart = loadavg()[0];
  const newYear = workload.newYear?.at ?? null;
  /** The database's clock, ahead of (or behind) the wall clock by this much. */
  let clockOffsetMs = newYear === null ? 0 : newYear - 3_600_000 - Date.now();
  const standin: RunningStandin = await startStandin({
    limits: { transactionLifetimeMs: options.transactionLifetimeMs },
    log: () => undefined, // connections the kill resets are expected
    clock: () => Date.now() + clockOffsetMs,
  });
  const admin = await MongoClient.connect(standin.uri, {
    appName: 'kill-run',
    serverSelectionTimeoutMS: 5_000,
    socketTimeoutMS: SOCKET_TIMEOUT_MS,
  });
  const dbName = `kill_run_${options.workload}`;
  const slots: Array<Instance | null> = [];
  const started: Instance[] = [];
  try {
    log(`starting ${options.instances} service processes`);
    for (const instance of await Promise.all(
      Array.from({ length: options.instances }, () => startInstance(standin.uri, dbName)),
    )) {
      slots.push(instance);
      started.push(instance);
    }
    const context = new RunContext<Instance>(slots, options.clientsPerInstance);
    const prepared = await workload.prepare(context, options.holdSeconds);
    const durationMs = options.seconds * 1000;
    const startedAt = performance.now();
    context.stopIn(durationMs);
    if (newYear !== null) {
      clockOffsetMs = newYear - (Date.now() + options.killAt * durationMs - 500);
      log(
        `the database's clock passes New Year's Eve midnight in ${workload.newYear?.zone} at ${(options.killAt * durationMs - 500) / 1000} s`,
      );
    }
    log(
      `load: ${options.instances} × ${options.clientsPerInstance} clients for ${options.seconds} s`,
    );
    const stats = new StatsWatch();
    const watching = (async () => {
      while (!context.stopped) {
        await stats.poll(context.slots);
        await sleep(STATS_POLL_MS);
      }
    })();
    const clients = Array.from({ length: options.instances * options.clientsPerInstance }, (_, c) =>
      prepared.client(c),
    );
    const faults = rotateFailPoints(
      admin,
      faultRows(workload),
      options.failPointEveryMs,
      () => context.stopped,
    );
    const kill = killAndRestart(context, startedAt, options.killAt * durationMs, async () => {
      const instance = await startInstance(standin.uri, dbName);
      started.push(instance);
      return instance;
    });
    const [killed, fired] = await Promise.all([kill, faults, watching]);
    await Promise.all(clients);
    const seconds = (performance.now() - startedAt) / 1000;
    log(`load done after ${seconds.toFixed(1)} s; checking the database`);
    await stats.poll(context.slots);
    const result = await prepared.finish(admin.db(dbName));
    return {
      workload: options.workload,
      instances: options.instances,
      clients: clients.length,
      seconds,
      loadAverage: { start: loadStart, end: loadavg()[0] },
      answers: Object.fromEntries([...context.answers].sort(([a], [b]) => a.localeCompare(b))),
      timeline: context.timeline,
      kill: killed,
      failPoints: [...fired].map(([name, count]) => ({ name, fired: count })),
      transactionStats: stats.total(),
      result,
      problems: [...context.unexpected, ...result.problems],
    };
  } finally {
    await Promise.all(started.map((instance) => instance.fleet.stop()));
    await admin.close();
    await standin.stop();
  }
}
