/**
 * `npm run bench:fanout [-- --subscribers 100 --rate 100 --seconds 30 --port P --cpu-prof --entry E]`: subscription
 * fan-out (issue 22). N subscribers to `userCreated` over graphql-ws while users are created at a
 * steady rate: does every subscriber get every event, how long does delivery take, and what does
 * the service hold in memory.
 *
 * Contract: builds the service (`npm run build`, nothing to do when current), starts (or uses) the
 * bench database (./database.ts) and one production service process (./service-processes.ts) on
 * a fresh database name, opens N graphql-ws connections to it, one subscription each (the fleet's
 * client token), and warms up until every subscriber has seen an event. Then, for `seconds`, it
 * sends `createUser` at `rate` per second on a fixed schedule (not closed-loop: a slow answer does
 * not slow the load). Subscriber 0 drops its connection a third of the way in and, 2 s later,
 * subscribes again on a new connection with `after:` the last cursor it had: it must miss none.
 * When the load ends it waits (bounded) until every subscriber has every acknowledged user, then
 * reports:
 * - per subscriber, acknowledged users received, missing and duplicated (all must be N, 0, 0);
 * - delivery latency p50/p99/max, from the user's `createdAt` (stamped by the service just before
 *   the insert) to the subscriber's receipt, over every delivery of subscribers 1..N-1 (subscriber
 *   0's replay after its gap is late by design, so it is left out); the same clock on one machine,
 *   in milliseconds, so a figure under 1 ms reads as 0;
 * - the service's peak RSS (sampled every 100 ms), its CPU over the load, `createUser` p50/p99;
 * - the load average before and after (run it with `nice -n 10`: it shares the machine).
 * Writes Markdown to stdout and `bench/results-fanout.json`. Every wait is bounded. `--cpu-prof`
 * runs the service under `node --cpu-prof` (profile in `bench/cpu-profiles/`); `--entry` measures
 * another build's `dist/main.js` (an A/B of builds on one machine, run alternately).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startBenchDatabase } from './database';
import { cpuMs } from './process-usage';
import { startServiceFleet, type ServiceFleet } from './service-processes';

const ROOT = join(__dirname, '..');
/** Where `--cpu-prof` puts the service's profile (git-ignored, as `npm run bench`'s). */
const PROFILE_DIR = join(__dirname, 'cpu-profiles');
const BUILD_TIMEOUT_MS = 300_000;
const REQUEST_TIMEOUT_MS = 10_000;
const WARM_UP_TIMEOUT_MS = 60_000;
const DRAIN_TIMEOUT_MS = 60_000;
const RESUME_AFTER_MS = 2_000;
const USER_CREATED = `subscription Created($after: String) {
  userCreated(after: $after) { cursor user { id createdAt } }
}`;

interface Options {
  subscribers: number;
  rate: number;
  seconds: number;
  port?: number;
  cpuProfile: boolean;
  /** Another build's `dist/main.js` to measure instead of this checkout's (an A/B of builds). */
  entry?: string;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { subscribers: 100, rate: 100, seconds: 30, cpuProfile: false };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--entry') {
      options.entry = argv[i + 1];
      continue;
    }
    if (argv[i] === '--cpu-prof') {
      options.cpuProfile = true;
      i -= 1;
      continue;
    }
    const [flag, value] = [argv[i], Number(argv[i + 1])];
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${flag} needs a positive integer`);
    if (flag === '--subscribers') options.subscribers = value;
    else if (flag === '--rate') options.rate = value;
    else if (flag === '--seconds') options.seconds = value;
    else if (flag === '--port') options.port = value;
    else throw new Error(`unknown option ${flag}`);
  }
  return options;
}

const note = (message: string) => process.stderr.write(`bench:fanout: ${message}\n`);

/** One subscriber: every user it received (id → receipt count) and the delivery latencies. */
class Subscriber {
  readonly received = new Map<string, number>();
  readonly latencies: number[] = [];
  lastCursor: string | null = null;
  private client: Client | null = null;
  private failure: unknown = null;
  /** Which connection is current: a dropped one's late messages are lost, as on a real drop. */
  private generation = 0;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
  ) {}

  subscribe(after: string | null = null): void {
    this.generation += 1;
    const generation = this.generation;
    this.client = createClient({
      url: this.url,
      webSocketImpl: WebSocket,
      connectionParams: this.headers,
      retryAttempts: 0,
    });
    this.client.subscribe<{
      userCreated: { cursor: string; user: { id: string; createdAt: string } };
    }>(
      { query: USER_CREATED, variables: { after } },
      {
        next: ({ data, errors }) => {
          if (generation !== this.generation) return;
          if (errors !== undefined || data == null) {
            this.failure = errors ?? 'no data';
            return;
          }
          const receivedAt = Date.now();
          const { cursor, user } = data.userCreated;
          this.lastCursor = cursor;
          this.received.set(user.id, (this.received.get(user.id) ?? 0) + 1);
          this.latencies.push(receivedAt - Date.parse(user.createdAt));
        },
        error: (error) => {
          this.failure = error;
        },
        complete: () => {},
      },
    );
  }

  /** Drops the connection (as a lost network would), keeping what was received. */
  async drop(): Promise<void> {
    this.generation += 1;
    await this.client?.dispose();
    this.client = null;
  }

  get failed(): unknown {
    return this.failure;
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Waits until `done` holds, checking every 100 ms, at most `timeoutMs`. */
async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return done();
}

async function createUser(
  fleet: ServiceFleet,
  name: string,
): Promise<{ id: string | null; ms: number }> {
  const started = performance.now();
  try {
    const response = await fetch(`${fleet.processes[0].url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...fleet.headers },
      body: JSON.stringify({
        query: 'mutation C($input: CreateUserInput!) { createUser(input: $input) { user { id } } }',
        variables: { input: { name } },
      }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = (await response.json()) as { data?: { createUser?: { user?: { id: string } } } };
    return { id: body.data?.createUser?.user?.id ?? null, ms: performance.now() - started };
  } catch {
    return { id: null, ms: performance.now() - started };
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const loadBefore = loadavg();
  note('building the service (npm run build: nothing to do when the build is current)');
  await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT, timeout: BUILD_TIMEOUT_MS });
  const database = await startBenchDatabase();
  const fleet = await startServiceFleet({
    instances: 1,
    mongodbUri: database.uri,
    dbName: `bench_fanout_${Date.now()}`,
    blockSize: 100,
    blockSizeMax: 10_000,
    port: options.port,
    entry: options.entry,
    nodeArgs: options.cpuProfile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
  });
  const service = fleet.processes[0];
  const wsUrl = `${service.url.replace(/^http/, 'ws')}/graphql`;
  try {
    const subscribers = Array.from(
      { length: options.subscribers },
      () => new Subscriber(wsUrl, fleet.headers),
    );
    subscribers.forEach((subscriber) => subscriber.subscribe());
    note(`${subscribers.length} subscribers connecting; warming up`);
    const warmed = await (async () => {
      const deadline = Date.now() + WARM_UP_TIMEOUT_MS;
      while (Date.now() < deadline) {
        await createUser(fleet, 'warm-up');
        if (await until(() => subscribers.every((s) => s.received.size > 0), 500)) return true;
      }
      return false;
    })();
    if (!warmed) throw new Error('not every subscriber saw a warm-up user within the wait');
    const warmUpIds = new Set(subscribers.flatMap((s) => [...s.received.keys()]));
    subscribers.forEach((s) => (s.latencies.length = 0));

    const total = options.rate * options.seconds;
    const acknowledged: string[] = [];
    const requestMs: number[] = [];
    const stopRss = fleet.sampleRss();
    const cpuBefore = await cpuMs(service.pid);
    const databaseCpuBefore = database.pid === undefined ? 0 : await cpuMs(database.pid);
    const ownCpuBefore = process.cpuUsage();
    const ownDelay = monitorEventLoopDelay({ resolution: 10 });
    ownDelay.enable();
    const started = performance.now();
    const dropper = subscribers[0];
    let resumedAfter: string | null = null;
    const dropAt = started + (options.seconds * 1000) / 3;
    const resume = (async () => {
      await new Promise((r) => setTimeout(r, dropAt - performance.now()));
      await dropper.drop();
      resumedAfter = dropper.lastCursor;
      await new Promise((r) => setTimeout(r, RESUME_AFTER_MS));
      dropper.subscribe(resumedAfter);
    })();
    note(`creating ${total} users at ${options.rate}/s`);
    const sends: Array<Promise<void>> = [];
    for (let i = 0; i < total; i += 1) {
      const due = started + (i * 1000) / options.rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      sends.push(
        createUser(fleet, `fan-out ${i}`).then(({ id, ms }) => {
          requestMs.push(ms);
          if (id !== null) acknowledged.push(id);
        }),
      );
    }
    await Promise.all(sends);
    await resume;
    const loadSeconds = (performance.now() - started) / 1000;
    const cpuAfter = await cpuMs(service.pid);
    const databaseCpuAfter = database.pid === undefined ? 0 : await cpuMs(database.pid);
    const ownCpu = process.cpuUsage(ownCpuBefore);
    ownDelay.disable();
    note(`${acknowledged.length} acknowledged; waiting for every subscriber to have them`);
    const hasAll = (s: Subscriber) => acknowledged.every((id) => s.received.has(id));
    await until(() => subscribers.every(hasAll), DRAIN_TIMEOUT_MS);
    const peakRssMb = stopRss();
    const cpuDrained = await cpuMs(service.pid);

    const deliveriesMade = subscribers
      .flatMap((s) => [...s.received.entries()])
      .reduce((sum, [id, count]) => sum + (warmUpIds.has(id) ? 0 : count), 0);
    const rows = subscribers.map((s, index) => {
      const measured = [...s.received.entries()].filter(([id]) => !warmUpIds.has(id));
      return {
        index,
        received: acknowledged.filter((id) => s.received.has(id)).length,
        missing: acknowledged.filter((id) => !s.received.has(id)).length,
        duplicated: measured.filter(([, count]) => count > 1).length,
        failed: s.failed === null ? null : JSON.stringify(s.failed).slice(0, 200),
      };
    });
    const latencies = subscribers
      .slice(1)
      .flatMap((s) => s.latencies)
      .sort((a, b) => a - b);
    const requests = [...requestMs].sort((a, b) => a - b);
    const everyOne = rows.every((r) => r.missing === 0 && r.duplicated === 0 && r.failed === null);
    const results = {
      at: new Date().toISOString(),
      backend: database.description,
      options,
      loadAverageBefore: loadBefore.map((l) => Number(l.toFixed(2))),
      loadAverageAfter: loadavg().map((l) => Number(l.toFixed(2))),
      users: {
        sent: total,
        acknowledged: acknowledged.length,
        perSecond: acknowledged.length / loadSeconds,
      },
      deliveries: {
        expected: acknowledged.length * subscribers.length,
        received: rows.reduce((sum, r) => sum + r.received, 0),
        perSecond: (acknowledged.length * subscribers.length) / loadSeconds,
        everySubscriberGotEveryEvent: everyOne,
      },
      resumed: { subscriber: 0, after: resumedAfter, ...rows[0] },
      latencyMs: {
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: latencies.at(-1) ?? NaN,
        samples: latencies.length,
      },
      createUserMs: { p50: percentile(requests, 50), p99: percentile(requests, 99) },
      service: {
        peakRssMb: Number(peakRssMb.toFixed(1)),
        cpuMsPerSecond: (cpuAfter - cpuBefore) / loadSeconds,
        // From the first create until every event was delivered, over every delivery (warm-up
        // excluded), creates included: compare builds at the same load.
        cpuUsPerDelivery: ((cpuDrained - cpuBefore) * 1000) / Math.max(1, deliveriesMade),
      },
      databaseCpuMsPerSecond: (databaseCpuAfter - databaseCpuBefore) / loadSeconds,
      // The subscribers and the load live in this process: its own lag is part of every latency.
      benchProcess: {
        cpuMsPerSecond: (ownCpu.user + ownCpu.system) / 1000 / loadSeconds,
        eventLoopDelayP99Ms: ownDelay.percentile(99) / 1e6,
      },
      subscribersShort: rows.filter((r) => r.missing > 0 || r.duplicated > 0 || r.failed !== null),
    };
    writeFileSync(join(__dirname, 'results-fanout.json'), `${JSON.stringify(results, null, 2)}\n`);
    const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
    process.stdout.write(
      [
        `## Subscription fan-out: ${subscribers.length} subscribers, ${options.rate} users/s for ${options.seconds} s`,
        '',
        `Backend: ${results.backend}. Load average before ${results.loadAverageBefore.join(' ')}, after ${results.loadAverageAfter.join(' ')}.`,
        '',
        '| figure | value | target |',
        '|---|---|---|',
        `| users acknowledged | ${acknowledged.length} of ${total} (${results.users.perSecond.toFixed(1)}/s) | |`,
        `| deliveries | ${results.deliveries.received} of ${results.deliveries.expected} (${results.deliveries.perSecond.toFixed(0)}/s) | every subscriber every event: ${verdict(everyOne)} |`,
        `| subscriber 0, dropped and resumed | ${rows[0].received} received, ${rows[0].missing} missing, ${rows[0].duplicated} twice | none missed: ${verdict(rows[0].missing === 0 && rows[0].duplicated === 0)} |`,
        `| delivery latency p50 / p99 / max | ${results.latencyMs.p50} / ${results.latencyMs.p99} / ${results.latencyMs.max} ms (${latencies.length} deliveries) | p99 < 100 ms: ${verdict(results.latencyMs.p99 < 100)} |`,
        `| service peak RSS | ${results.service.peakRssMb} MB | < 200 MB: ${verdict(results.service.peakRssMb < 200)} |`,
        `| service CPU | ${results.service.cpuMsPerSecond.toFixed(0)} ms per second, ${results.service.cpuUsPerDelivery.toFixed(1)} µs per delivery (creates included) | |`,
        `| database CPU | ${results.databaseCpuMsPerSecond.toFixed(0)} ms per second | |`,
        `| bench process (subscribers and load) CPU, event-loop delay p99 | ${results.benchProcess.cpuMsPerSecond.toFixed(0)} ms per second, ${results.benchProcess.eventLoopDelayP99Ms.toFixed(0)} ms | |`,
        `| createUser p50 / p99 | ${results.createUserMs.p50.toFixed(1)} / ${results.createUserMs.p99.toFixed(1)} ms | |`,
        '',
      ].join('\n'),
    );
    await Promise.all(subscribers.map((s) => s.drop()));
  } finally {
    await fleet.stop();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
