/**
 * The service under load: K real `node dist/main.js` processes on one database, and what can be
 * read from outside them (per-strategy counters and counter-document writes from `/metrics`, RSS
 * from `/proc`).
 *
 * Contract: `startServiceFleet` returns only when every process answers `GET /ready`, within a
 * bounded time, or kills them all and throws with the failed process's output. Each process gets
 * its own free port on 127.0.0.1 and the same `MONGODB_DB`, so the fleet shares one `users`
 * collection and one `userid` counter. The fleet calls itself a client of the service (one client
 * token per fleet, `CLIENT_TOKENS`), as a back-end would: batches and `/metrics` need one. That
 * client's `usersCreated` budget is unlimited (`BUDGETS`, `FLEET_BUDGETS`): a 12-second cell of
 * batches creates more users than the hourly budget the service ships for a client, and a cell
 * measures how fast the service creates users, not where its budget stops a caller (an unlimited
 * budget costs nothing to charge, so the cells leave out the creation budget's lease work). RSS is sampled from `/proc/<pid>/status` every ~100 ms
 * while a sampler runs, so the peak covers the whole cell. Every HTTP call is bounded in time.
 * Each process runs with the heap sizing flags of `npm start` (package.json's start script, their
 * one home), so the bench measures the memory the service is deployed with; flags given to the
 * fleet come after them and win.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rssMb } from './process-usage';
import { freePort } from '../test/support/ports';

export interface ServiceProcess {
  url: string;
  pid: number;
}

/**
 * The fleet's Prometheus counters at one instant, summed over its processes: series name →
 * label value (`strategy` or `sequence`) → value.
 */
export type MetricsSnapshot = Map<string, Map<string, number>>;

export interface ServiceFleet {
  processes: ServiceProcess[];
  /** What every request to the fleet carries: its client token. */
  headers: Record<string, string>;
  /** Every process's `GET /metrics`, summed. */
  metrics(): Promise<MetricsSnapshot>;
  /** Starts sampling RSS; the returned function stops it and gives the peak of any process, MB. */
  sampleRss(): () => number;
  stop(): Promise<void>;
}

/** The fleet client's budgets (`BUDGETS`): creations unbounded over time (the header says why). */
const FLEET_BUDGETS = 'usersCreated.client=unlimited';

/** The client name a fleet's token stands for (`CLIENT_TOKENS`). */
export const FLEET_CLIENT = 'bench';

const ROOT = join(__dirname, '..');
const READY_TIMEOUT_MS = 60_000;
const HTTP_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 15_000;
const RSS_SAMPLE_MS = 100;
const HEAP_SIZING_FLAG = /^--max-(semi|old)-space-size=\d+$/;

/** The heap sizing flags of package.json's start script. */
function startScriptHeapFlags(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  return manifest.scripts.start.split(/\s+/).filter((arg) => HEAP_SIZING_FLAG.test(arg));
}

async function fetchBounded(url: string, init?: RequestInit): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
}

async function waitUntilReady(
  url: string,
  child: ChildProcess,
  output: () => string,
  readyTimeoutMs: number,
) {
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`service exited (${child.exitCode}):\n${output()}`);
    const ready = await fetchBounded(`${url}/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`service at ${url} not ready within ${readyTimeoutMs} ms:\n${output()}`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

async function startOne(
  env: Record<string, string>,
  nodeArgs: string[],
  entry: string,
  launcher: Launcher | undefined,
  fixedPort?: number,
): Promise<{ child: ChildProcess; url: string }> {
  const port = fixedPort ?? (await freePort());
  const node = [process.execPath, ...startScriptHeapFlags(), ...nodeArgs, entry];
  const [command, ...args] = [...(launcher?.command ?? []), ...node];
  const child = spawn(command, args, {
    cwd: ROOT,
    // No grace before the drain: nothing routes to a bench process by its readiness.
    env: { ...process.env, SHUTDOWN_GRACE_MS: '0', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(url, child, () => output, launcher?.readyTimeoutMs ?? READY_TIMEOUT_MS);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  return { child, url };
}

/** A Prometheus text sample: `name{label="value"} number`, at most one label captured. */
const SAMPLE_LINE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[a-zA-Z_][a-zA-Z0-9_]*="([^"]*)"[^}]*\})?\s+(\S+)$/gm;

/**
 * Builds before 0.5 named their series without the `sequential_ids_` prefix (CHANGELOG, 0.5.0), so
 * a comparison with such a build reads the old name when the new one is absent.
 */
const SERIES_PREFIX = 'sequential_ids_';

/** One series' value in a snapshot: one label value, or all of them summed when none is given. */
export function metricValue(snapshot: MetricsSnapshot, name: string, label?: string): number {
  const series =
    snapshot.get(name) ??
    (name.startsWith(SERIES_PREFIX) ? snapshot.get(name.slice(SERIES_PREFIX.length)) : undefined);
  if (!series) return 0;
  if (label !== undefined) return series.get(label) ?? 0;
  return [...series.values()].reduce((a, b) => a + b, 0);
}

/**
 * A program that runs `node` itself, in the same process (e.g. valgrind), and how long a
 * service may take to be ready under it.
 */
export interface Launcher {
  command: string[];
  readyTimeoutMs: number;
}

export async function startServiceFleet(options: {
  instances: number;
  mongodbUri: string;
  dbName: string;
  blockSize: number;
  blockSizeMax: number;
  /** Extra `node` flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** The service's built entry point; this checkout's `dist/main.js` unless told otherwise. */
  entry?: string;
  /** Runs `node` under this program (same pid); plain `node` unless told. */
  launcher?: Launcher;
  /** Ports `port`, `port + 1`, ... for the processes (a range one was given); free ones if unset. */
  port?: number;
  /** More environment for every process (e.g. `BUDGETS=off`), over the fleet's own. */
  env?: Record<string, string>;
}): Promise<ServiceFleet> {
  const token = randomBytes(24).toString('hex');
  const headers = { authorization: `Bearer ${token}` };
  const env = {
    CLIENT_TOKENS: `${FLEET_CLIENT}:${token}`,
    MONGODB_URI: options.mongodbUri,
    MONGODB_DB: options.dbName,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    BUDGETS: FLEET_BUDGETS,
    ID_BLOCK_SIZE: String(options.blockSize),
    ID_BLOCK_SIZE_MAX: String(options.blockSizeMax),
    ...options.env,
  };
  const started = await Promise.allSettled(
    Array.from({ length: options.instances }, (_, i) =>
      startOne(
        env,
        options.nodeArgs ?? [],
        options.entry ?? join(ROOT, 'dist/main.js'),
        options.launcher,
        options.port === undefined ? undefined : options.port + i,
      ),
    ),
  );
  const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failure = started.find((s) => s.status === 'rejected');
  if (failure) {
    await Promise.all(running.map((r) => stopProcess(r.child)));
    throw failure.reason;
  }
  const processes = running.map((r) => ({ url: r.url, pid: r.child.pid ?? 0 }));

  return {
    processes,
    headers,
    async metrics() {
      const snapshot: MetricsSnapshot = new Map();
      const texts = await Promise.all(
        processes.map(async (p) => (await fetchBounded(`${p.url}/metrics`, { headers })).text()),
      );
      for (const [, name, label, value] of texts.flatMap((t) => [...t.matchAll(SAMPLE_LINE)])) {
        const series = snapshot.get(name) ?? new Map<string, number>();
        series.set(label ?? '', (series.get(label ?? '') ?? 0) + Number(value));
        snapshot.set(name, series);
      }
      return snapshot;
    },
    sampleRss() {
      let peak = 0;
      const sample = async () => {
        const current = await Promise.all(processes.map((p) => rssMb(p.pid)));
        peak = Math.max(peak, ...current);
      };
      void sample();
      const timer = setInterval(() => void sample(), RSS_SAMPLE_MS);
      return () => {
        clearInterval(timer);
        return peak;
      };
    },
    stop: () => Promise.all(running.map((r) => stopProcess(r.child))).then(() => undefined),
  };
}
