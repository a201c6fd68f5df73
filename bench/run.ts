/**
 * `npm run bench [-- --quick] [-- --instances K] [-- --cpu-prof]`: every way of creating users,
 * measured side by side in one run.
 *
 * Contract: builds the service (unless dist/ is newer than every source), starts (or uses) one database, then measures cells one at a time
 * so they never compete with each other: the driver baselines (ObjectId insert, the tutorial's
 * getNextSequence + insert), then each service strategy (COUNTER, OPTIMISTIC_LOOP, BLOCK, and
 * createUsers batches of 100 with COUNTER) at each concurrency, each strategy on a fresh database
 * name and a freshly started service that is warmed up before it is measured. `--instances K`
 * instead measures K service processes on one database for COUNTER and BLOCK with block sizes 10,
 * 100 and 1,000 at concurrency 64, with counter-document writes. Every cell lasts a fixed time.
 * Writes the Markdown report to stdout, `bench/results[-instances-K].{json,svg}` beside this file,
 * progress to stderr. `--cpu-prof` starts the service processes with `node --cpu-prof` and leaves
 * the profiles in `bench/cpu-profiles/`.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SingleBar } from 'cli-progress';
import {
  DRIVER_BASELINES,
  connectCountingClient,
  runDriverBaseline,
  type CountingClient,
  type DriverBaseline,
} from './driver-baselines';
import { startBenchDatabase } from './database';
import { runHttpLoad, type LoadShape } from './http-load';
import { startCpuMeter } from './process-usage';
import { cpuPerUser, writeReport, type CellResult, type RunEnvironment } from './report';
import { metricValue, startServiceFleet, type ServiceFleet } from './service-processes';

interface Options {
  quick: boolean;
  instances: number | null;
  cpuProfile: boolean;
}

interface ServicePlan {
  label: string;
  /** What `strategyStats` files these creations under. */
  strategy: string;
  shape: LoadShape;
  blockSize: number;
  concurrencies: number[];
}

const ROOT = join(__dirname, '..');
const CONCURRENCIES = [1, 8, 64];
const INSTANCES_CONCURRENCY = 64;
const BATCH_SIZE = 100;
const DEFAULT_BLOCK_SIZE = 100;
const DRAIN_POLL_MS = 100;
const DRAIN_QUIET_POLLS = 3;
const DRAIN_TIMEOUT_MS = 20_000;
const BUILD_TIMEOUT_MS = 300_000;

function parseOptions(argv: string[]): Options {
  const options: Options = { quick: false, instances: null, cpuProfile: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--quick') options.quick = true;
    else if (arg === '--cpu-prof') options.cpuProfile = true;
    else if (arg === '--instances' || arg.startsWith('--instances=')) {
      const value = Number(arg.includes('=') ? arg.split('=')[1] : argv[++i]);
      if (!Number.isInteger(value) || value < 1 || value > 16)
        throw new Error('--instances takes a whole number from 1 to 16');
      options.instances = value;
    } else throw new Error(`unknown option ${arg} (known: --quick, --instances K, --cpu-prof)`);
  }
  return options;
}

function servicePlans(options: Options): ServicePlan[] {
  if (options.instances !== null) {
    const block = (blockSize: number): ServicePlan => ({
      label: `BLOCK (block ${blockSize})`,
      strategy: 'BLOCK',
      shape: { strategy: 'BLOCK', usersPerRequest: 1 },
      blockSize,
      concurrencies: [INSTANCES_CONCURRENCY],
    });
    return [
      {
        label: 'COUNTER',
        strategy: 'COUNTER',
        shape: { strategy: 'COUNTER', usersPerRequest: 1 },
        blockSize: DEFAULT_BLOCK_SIZE,
        concurrencies: [INSTANCES_CONCURRENCY],
      },
      block(10),
      block(100),
      block(1000),
    ];
  }
  const single = (strategy: LoadShape['strategy']): ServicePlan => ({
    label: `GraphQL createUser ${strategy}`,
    strategy,
    shape: { strategy, usersPerRequest: 1 },
    blockSize: DEFAULT_BLOCK_SIZE,
    concurrencies: CONCURRENCIES,
  });
  return [
    single('COUNTER'),
    single('OPTIMISTIC_LOOP'),
    single('BLOCK'),
    {
      label: `GraphQL createUsers ×${BATCH_SIZE} COUNTER`,
      strategy: 'COUNTER',
      shape: { strategy: 'COUNTER', usersPerRequest: BATCH_SIZE },
      blockSize: DEFAULT_BLOCK_SIZE,
      concurrencies: CONCURRENCIES,
    },
  ];
}

/** Progress on stderr: a bar on a terminal, one plain line per cell otherwise. */
function progress(totalCells: number) {
  const tty = Boolean(process.stderr.isTTY);
  const bar = new SingleBar({
    format: 'bench [{bar}] {value}/{total} cells | {cell}',
    stream: process.stderr,
    hideCursor: true,
  });
  let done = 0;
  const started = performance.now();
  const at = (): string => `${((performance.now() - started) / 1000).toFixed(0)}s`;
  if (tty) bar.start(totalCells, 0, { cell: 'starting' });
  return {
    cell(name: string) {
      if (tty) bar.update(done, { cell: name });
      else process.stderr.write(`bench ${at()}: [${done + 1}/${totalCells}] ${name}\n`);
    },
    cellDone() {
      done += 1;
      if (tty) bar.update(done);
    },
    note(message: string) {
      if (tty) bar.update(done, { cell: message });
      else process.stderr.write(`bench ${at()}: ${message}\n`);
    },
    stop() {
      if (tty) bar.stop();
    },
  };
}

/**
 * After the load stops, requests already sent still complete on the service (autocannon only
 * drops its sockets). Waits until the strategy's created-users count stops rising, within a bound,
 * and returns the final metrics and when the last increase was seen.
 */
async function drain(fleet: ServiceFleet, strategy: string, loadEnded: number) {
  let snapshot = await fleet.metrics();
  let lastRise = loadEnded;
  let quietPolls = 0;
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  while (quietPolls < DRAIN_QUIET_POLLS && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    const next = await fleet.metrics();
    const rose =
      metricValue(next, 'users_created_total', strategy) >
      metricValue(snapshot, 'users_created_total', strategy);
    quietPolls = rose ? 0 : quietPolls + 1;
    if (rose) lastRise = performance.now();
    snapshot = next;
  }
  return { snapshot, lastRise };
}

async function measureServiceCell(
  fleet: ServiceFleet,
  plan: ServicePlan,
  concurrency: number,
  durationS: number,
  databasePid: number | undefined,
): Promise<CellResult> {
  const before = await fleet.metrics();
  const stopRss = fleet.sampleRss();
  const cpuSpent = await startCpuMeter(
    fleet.processes.map((p) => p.pid),
    databasePid,
  );
  const loadStarted = performance.now();
  const load = await runHttpLoad({
    urls: fleet.processes.map((p) => p.url),
    shape: plan.shape,
    connections: concurrency,
    durationS,
  });
  const { snapshot: after, lastRise } = await drain(fleet, plan.strategy, performance.now());
  const cpu = await cpuSpent();
  const peakRssMb = stopRss();
  const delta = (name: string, label?: string): number =>
    metricValue(after, name, label) - metricValue(before, name, label);
  // Users as the service counts them (requests still in flight when the load stopped included),
  // over the time until the last of them was created.
  const users = delta('users_created_total', plan.strategy);
  const elapsedS = (lastRise - loadStarted) / 1000;
  const perUser = (value: number): number | null => (users === 0 ? null : value / users);
  return {
    path: 'service',
    label: plan.label,
    strategy: plan.shape.usersPerRequest > 1 ? 'CREATE_USERS_BATCH' : plan.strategy,
    concurrency,
    instances: fleet.processes.length,
    blockSize: plan.strategy === 'BLOCK' ? plan.blockSize : undefined,
    durationS: elapsedS,
    users,
    usersPerSecond: users / elapsedS,
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
    commandsPerUser: perUser(delta('user_creation_db_commands_total', plan.strategy)),
    duplicateKeyRetriesPerUser: perUser(delta('user_duplicate_key_retries_total', plan.strategy)),
    failedRequests: load.failedRequests,
    cpuMsPerUser: cpuPerUser(cpu, users),
    peakRssMb,
    counterWrites: delta('counter_document_writes_total'),
  };
}

/** True unless dist/main.js exists and is newer than every source file and the schema. */
async function buildIsStale(): Promise<boolean> {
  const built = await stat(join(ROOT, 'dist/main.js')).catch(() => null);
  if (!built) return true;
  const sources = (await readdir(join(ROOT, 'src'), { recursive: true })).map((f) =>
    join(ROOT, 'src', f),
  );
  const times = await Promise.all(
    [...sources, join(ROOT, 'schema.graphql'), join(ROOT, 'package-lock.json')].map(
      async (f) => (await stat(f).catch(() => null))?.mtimeMs ?? 0,
    ),
  );
  return times.some((t) => t > built.mtimeMs);
}

async function versions(counting: CountingClient) {
  const buildInfo = await counting.client
    .db('admin')
    .command({ buildInfo: 1, maxTimeMS: 10_000 })
    .catch(() => ({ version: 'unknown' }));
  const pkg = (dir: string): string =>
    JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')).version;
  return {
    serverVersion: String(buildInfo.version),
    driverVersion: pkg('node_modules/mongodb'),
    serviceVersion: pkg('.'),
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const cellSeconds = options.quick ? 2 : 12;
  const warmupSeconds = options.quick ? 1 : 3;
  const runId = Date.now().toString(36);
  const plans = servicePlans(options);
  const baselines: DriverBaseline[] =
    options.instances === null ? (Object.keys(DRIVER_BASELINES) as DriverBaseline[]) : [];
  const totalCells =
    baselines.length * CONCURRENCIES.length +
    plans.reduce((n, plan) => n + plan.concurrencies.length, 0);
  const bar = progress(totalCells);

  if (await buildIsStale()) {
    bar.note('building the service (npm run build)');
    await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT, timeout: BUILD_TIMEOUT_MS });
  } else bar.note('dist/ is newer than every file in src/: not rebuilding');
  bar.note('starting the database');
  const database = await startBenchDatabase();
  const counting = await connectCountingClient(database.uri);
  const dbNames: string[] = [];
  const freshDbName = (what: string): string => {
    const name = `bench_${runId}_${what.replace(/[^A-Za-z0-9]+/g, '_')}`.slice(0, 60);
    dbNames.push(name);
    return name;
  };
  const cells: CellResult[] = [];
  const fleets: ServiceFleet[] = [];
  try {
    // Every fleet starts now, in parallel, while nothing is being measured; each idles until its
    // cells, and stops after them.
    bar.note(`starting ${plans.length} × ${options.instances ?? 1} service process(es)`);
    const started = await Promise.allSettled(
      plans.map((plan) =>
        startServiceFleet({
          instances: options.instances ?? 1,
          mongodbUri: database.uri,
          dbName: freshDbName(`${plan.label}_${plan.blockSize}`),
          blockSize: plan.blockSize,
          nodeArgs: options.cpuProfile
            ? ['--cpu-prof', '--cpu-prof-dir', join(__dirname, 'cpu-profiles')]
            : [],
        }),
      ),
    );
    for (const s of started) if (s.status === 'fulfilled') fleets.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;

    const environment: RunEnvironment = {
      mode: options.instances !== null ? 'instances' : options.quick ? 'quick' : 'full',
      startedAt: new Date().toISOString(),
      backend: database.backend,
      backendDescription: database.description,
      nodeVersion: process.version,
      ...(await versions(counting)),
      cores: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      cellSeconds,
      loadAverage: { start: loadavg()[0], end: Number.NaN },
    };

    for (const baseline of baselines) {
      const dbName = freshDbName(baseline);
      for (const concurrency of CONCURRENCIES) {
        bar.cell(`${DRIVER_BASELINES[baseline]} @${concurrency}`);
        cells.push(
          await runDriverBaseline({
            counting,
            dbName,
            baseline,
            concurrency,
            durationMs: cellSeconds * 1000,
            databasePid: database.pid,
          }),
        );
        bar.cellDone();
      }
    }

    for (const [plan, fleet] of plans.map((plan, i) => [plan, fleets[i]] as const)) {
      try {
        bar.note(`warming up ${plan.label}`);
        await runHttpLoad({
          urls: fleet.processes.map((p) => p.url),
          shape: plan.shape,
          connections: 8,
          durationS: warmupSeconds,
        });
        await drain(fleet, plan.strategy, performance.now());
        for (const concurrency of plan.concurrencies) {
          bar.cell(`${plan.label} @${concurrency}`);
          cells.push(await measureServiceCell(fleet, plan, concurrency, cellSeconds, database.pid));
          bar.cellDone();
        }
      } finally {
        await fleet.stop();
      }
    }
    bar.stop();
    environment.loadAverage.end = loadavg()[0];

    const base =
      options.instances === null
        ? join(__dirname, 'results')
        : join(__dirname, `results-instances-${options.instances}`);
    process.stdout.write(await writeReport({ environment, cells }, base));
    process.stderr.write(`bench: wrote ${base}.json and ${base}.svg\n`);
  } finally {
    bar.stop();
    await Promise.all(fleets.map((fleet) => fleet.stop()));
    await Promise.all(
      dbNames.map((name) =>
        counting.client
          .db(name)
          .dropDatabase()
          .catch(() => undefined),
      ),
    );
    await counting.close();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
