/**
 * The service under load: K real `node dist/main.js` processes on one database, and what can be
 * read from outside them (strategy stats over GraphQL, counter writes from `/metrics`, RSS from
 * `/proc`).
 *
 * Contract: `startServiceFleet` returns only when every process answers `GET /ready`, within a
 * bounded time, or kills them all and throws with the failed process's output. Each process gets
 * its own free port on 127.0.0.1 and the same `MONGODB_DB`, so the fleet shares one `users`
 * collection and one `userid` counter. RSS is sampled from `/proc/<pid>/status` every ~100 ms
 * while a sampler runs, so the peak covers the whole cell. Every HTTP call is bounded in time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface ServiceProcess {
  url: string;
  pid: number;
}

/** Per-strategy totals summed over the fleet, as `strategyStats` reports them since start. */
export interface StrategyTotals {
  usersCreated: number;
  duplicateKeyRetries: number;
  commands: number;
}

export interface ServiceFleet {
  processes: ServiceProcess[];
  strategyTotals(strategy: string): Promise<StrategyTotals>;
  /** Sum of `counter_document_writes_total` over the fleet's `/metrics`. */
  counterWrites(): Promise<number>;
  /** Starts sampling RSS; the returned function stops it and gives the peak of any one process, MB. */
  sampleRss(): () => number;
  stop(): Promise<void>;
}

const ROOT = join(__dirname, '..');
const READY_TIMEOUT_MS = 60_000;
const HTTP_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 15_000;
const RSS_SAMPLE_MS = 100;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

async function fetchBounded(url: string, init?: RequestInit): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
}

async function graphql<T>(url: string, query: string): Promise<T> {
  const response = await fetchBounded(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (!body.data || body.errors) throw new Error(`${url}: ${JSON.stringify(body.errors)}`);
  return body.data;
}

async function waitUntilReady(url: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
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
  throw new Error(`service at ${url} not ready within ${READY_TIMEOUT_MS} ms:\n${output()}`);
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
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'dist/main.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
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
    await waitUntilReady(url, child, () => output);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  return { child, url };
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) / 1024;
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

export async function startServiceFleet(options: {
  instances: number;
  mongodbUri: string;
  dbName: string;
  blockSize: number;
  /** Extra `node` flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
}): Promise<ServiceFleet> {
  const env = {
    MONGODB_URI: options.mongodbUri,
    MONGODB_DB: options.dbName,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    ID_BLOCK_SIZE: String(options.blockSize),
  };
  const started = await Promise.allSettled(
    Array.from({ length: options.instances }, () => startOne(env, options.nodeArgs ?? [])),
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
    async strategyTotals(strategy) {
      type Row = {
        strategy: string;
        usersCreated: number;
        duplicateKeyRetries: number;
        commandsPerUser: number | null;
      };
      const perProcess = await Promise.all(
        processes.map(async (p) => {
          const { strategyStats } = await graphql<{ strategyStats: Row[] }>(
            p.url,
            '{ strategyStats { strategy usersCreated duplicateKeyRetries commandsPerUser } }',
          );
          const row = strategyStats.find((r) => r.strategy === strategy);
          return {
            usersCreated: row?.usersCreated ?? 0,
            duplicateKeyRetries: row?.duplicateKeyRetries ?? 0,
            commands: row ? Math.round((row.commandsPerUser ?? 0) * row.usersCreated) : 0,
          };
        }),
      );
      return {
        usersCreated: sum(perProcess.map((t) => t.usersCreated)),
        duplicateKeyRetries: sum(perProcess.map((t) => t.duplicateKeyRetries)),
        commands: sum(perProcess.map((t) => t.commands)),
      };
    },
    async counterWrites() {
      const perProcess = await Promise.all(
        processes.map(async (p) => {
          const text = await (await fetchBounded(`${p.url}/metrics`)).text();
          return sum(
            [...text.matchAll(/^counter_document_writes_total(?:\{[^}]*\})?\s+(\S+)/gm)].map((m) =>
              Number(m[1]),
            ),
          );
        }),
      );
      return sum(perProcess);
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
