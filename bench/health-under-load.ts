/**
 * `/health` latency while hostile bodies run (issue 18: "`/health` p99 stays under 100 ms while 10
 * of them run"). Starts the database the bench would (bench/database.ts) and one production
 * service process (`dist/main.js`, built by `npm run build`), then:
 * 1. idle: `/health` probed for `--idle-seconds` with nothing else sent to the service, the
 *    machine's own noise floor;
 * 2. loaded: `--concurrency` senders (default 10) each send issue 18's hostile 1 MB bodies
 *    (test/support/hostile-bodies.ts, in rotation) back to back for `--seconds`, so that many are in
 *    flight all the time, while `/health` is probed the same way.
 * A probe is one `GET /health` on a kept-alive connection, one at a time, `--interval-ms` apart;
 * its latency is from sending to the last byte. The senders run in a worker thread, so their own
 * work never delays the prober's event loop (the CPU is shared all the same: 2 cores on this
 * machine, with the database and the service). Prints p50/p90/p99/max of each phase, the hostile
 * answers' statuses, slowest answer and largest size, and the load average before and after.
 *
 * Usage: npx tsx bench/health-under-load.ts [--seconds 20] [--idle-seconds 5]
 *          [--concurrency 10] [--interval-ms 10] [--profile]
 * `--profile` runs the service under `node --cpu-prof` (into bench/cpu-profiles/, git-ignored) and
 * prints where its CPU went while the hostile bodies ran (./profile-split.ts).
 * A measurement, not a test: no figure here is asserted anywhere.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { HOSTILE_BODIES } from '../test/support/hostile-bodies';
import { startBenchDatabase } from './database';
import {
  profileSplit,
  profileTable,
  topFunctions,
  type CpuProfile,
  type SampleWindow,
} from './profile-split';
import { startServiceFleet } from './service-processes';

const ROOT = join(__dirname, '..');
const PROFILE_DIR = join(__dirname, 'cpu-profiles');
const BUILD_TIMEOUT_MS = 600_000;
/** Any one probe or hostile request: a hang ends the run instead of stalling it. */
const REQUEST_TIMEOUT_MS = 30_000;

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at < 0 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

/** One `GET /health`: its latency in ms (the whole answer read). */
function probe(url: string, agent: Agent): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${url}/health`, { agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      res.resume();
      res.once('end', () =>
        res.statusCode === 200
          ? resolve(performance.now() - started)
          : reject(new Error(`/health answered ${res.statusCode}`)),
      );
    });
    req.once('timeout', () => req.destroy(new Error('/health did not answer in time')));
    req.once('error', reject);
    req.end();
  });
}

/** Probes `/health` one at a time, `intervalMs` apart, for `seconds`; the latencies. */
async function probeFor(url: string, seconds: number, intervalMs: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1_000;
  try {
    while (performance.now() < end) {
      latencies.push(await probe(url, agent));
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  } finally {
    agent.destroy();
  }
  return latencies;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return [
    `${sorted.length} probes`,
    `p50 ${ms(percentile(sorted, 50))}`,
    `p90 ${ms(percentile(sorted, 90))}`,
    `p99 ${ms(percentile(sorted, 99))}`,
    `max ${ms(sorted[sorted.length - 1])}`,
  ].join(', ');
}

/** The senders' code (plain JavaScript, run in a worker): back-to-back POSTs until told to stop. */
const SENDERS = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, bodies, concurrency, timeoutMs } = workerData;
let running = true;
const answers = [];
parentPort.once('message', () => { running = false; });
async function sender(index) {
  for (let n = index; running; n += concurrency) {
    const started = performance.now();
    const response = await fetch(url + '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bodies[n % bodies.length],
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    answers.push({ status: response.status, bytes: Buffer.byteLength(text), ms: performance.now() - started });
  }
}
Promise.all(Array.from({ length: concurrency }, (_, i) => sender(i))).then(
  () => parentPort.postMessage({ answers }),
  (error) => parentPort.postMessage({ error: String(error) }),
);
`;

interface HostileAnswer {
  status: number;
  bytes: number;
  ms: number;
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

async function main() {
  const seconds = option('seconds', 20);
  const idleSeconds = option('idle-seconds', 5);
  const concurrency = option('concurrency', 10);
  const intervalMs = option('interval-ms', 10);
  const profileDir = process.argv.includes('--profile')
    ? await mkdtemp(join(PROFILE_DIR, 'health-'))
    : null;
  console.log(`load average before: ${load()}`);
  await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT, timeout: BUILD_TIMEOUT_MS });
  const database = await startBenchDatabase();
  const fleet = await startServiceFleet({
    instances: 1,
    mongodbUri: database.uri,
    dbName: `health-under-load-${process.pid}`,
    blockSize: 100,
    blockSizeMax: 10_000,
    nodeArgs: profileDir === null ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir],
  }).catch(async (error: unknown) => {
    await database.stop();
    throw error;
  });
  let loadWindow: { started: number; ended: number } | undefined;
  let exitedAt: number | undefined;
  try {
    const { url } = fleet.processes[0];
    console.log(`database: ${database.description}; service: ${url} (NODE_ENV=production)`);
    console.log(`idle, ${idleSeconds} s: ${summary(await probeFor(url, idleSeconds, intervalMs))}`);

    const bodies = HOSTILE_BODIES.map((hostile) => hostile.body());
    const worker = new Worker(SENDERS, {
      eval: true,
      workerData: { url, bodies, concurrency, timeoutMs: REQUEST_TIMEOUT_MS },
    });
    const finished = new Promise<{ answers?: HostileAnswer[]; error?: string }>(
      (resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      },
    );
    const loadStarted = Date.now();
    const loaded = await probeFor(url, seconds, intervalMs);
    loadWindow = { started: loadStarted, ended: Date.now() };
    worker.postMessage('stop');
    const { answers, error } = await finished;
    await worker.terminate();
    if (error !== undefined) throw new Error(`a hostile request failed: ${error}`);
    console.log(`${concurrency} hostile bodies in flight, ${seconds} s: ${summary(loaded)}`);
    const sent = answers ?? [];
    const statuses = [...new Set(sent.map((answer) => answer.status))].join(', ');
    console.log(
      `hostile answers: ${sent.length} (HTTP ${statuses}), slowest ${Math.max(...sent.map((a) => a.ms)).toFixed(0)} ms, ` +
        `largest ${Math.max(...sent.map((a) => a.bytes))} bytes`,
    );
  } finally {
    await fleet.stop();
    exitedAt = Date.now();
    await database.stop();
    console.log(`load average after: ${load()}`);
  }
  if (profileDir !== null && loadWindow !== undefined && exitedAt !== undefined) {
    await printProfile(profileDir, loadWindow, exitedAt);
  }
}

/** Where the service's CPU went while the hostile bodies ran (its profile ends at its exit). */
async function printProfile(
  dir: string,
  loaded: { started: number; ended: number },
  exited: number,
): Promise<void> {
  const [file] = await readdir(dir);
  const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
  const window: SampleWindow = {
    startMsBeforeEnd: exited - loaded.started,
    endMsBeforeEnd: exited - loaded.ended,
  };
  const top = topFunctions(profile, 25, window).map((f) => `| ${f.name} | ${f.ms.toFixed(0)} |`);
  console.log(`\n${join(dir, file)}\n\n${profileTable(profileSplit(profile, window))}\n`);
  console.log(`| Function | Self ms |\n| --- | --- |\n${top.join('\n')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
