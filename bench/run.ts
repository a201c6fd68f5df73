/**
 * `npm run bench [-- --quick] [-- --instances K] [-- --cpu-prof]`: every way of creating users,
 * measured side by side in one run.
 *
 * Contract: builds the service (`npm run build`, which does nothing when the build is current),
 * starts (or uses) one
 * database, starts every service fleet up front on its own fresh database name (they idle until
 * their turn), then measures one cell at a time so cells never compete: the driver baselines
 * (ObjectId insert; the tutorial's getNextSequence + insert), then each service plan after a
 * warm-up. Default plans: COUNTER, OPTIMISTIC_LOOP, BLOCK (blocks adapting from 100 to 10,000),
 * and createUsers batches of 100 with COUNTER, each at concurrency 1, 8 and 64, and batches of
 * 1,000 at 64; COUNTER, BLOCK, TRANSACTION and the raw tutorial loop also at 256 and 512 (a
 * burst); then 6 paired rounds (1 with `--quick`) of the raw tutorial loop, the floor fixture
 * (./floor-service.ts) and COUNTER at 64, taking turns, from which issue 14's COUNTER-versus-raw
 * verdicts are read. `--instances K`: K processes per fleet, COUNTER and BLOCK with fixed block sizes
 * 10, 100 and 1,000 at concurrency 64, with counter-document writes. Every
 * cell lasts a fixed time (1.5 s with `--quick`, 12 s otherwise). Writes the Markdown report to
 * stdout, `bench/results[-instances-K][-quick].{json,svg}`, progress to stderr; drops each
 * database as soon as its cells are done (the stand-in slows as its collections grow: 4 rounds of
 * BLOCK on one growing database went from 1,604 to 1,133 users/s), and any left at the end. `--cpu-prof` runs the service processes under `node --cpu-prof`, with
 * the profiles in `bench/cpu-profiles/` (git-ignored).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  DRIVER_BASELINES,
  connectCountingClient,
  runDriverBaseline,
  type CountingClient,
  type DriverBaseline,
} from './driver-baselines';
import { startBenchDatabase } from './database';
import { progress } from './progress';
import { writeReport, type CellResult, type PairedRound, type RunEnvironment } from './report';
import {
  BURST_CONCURRENCIES,
  CONCURRENCIES,
  measureServiceCell,
  servicePlans,
  warmUp,
  type ServicePlan,
} from './service-cells';
import { startServiceFleet, type ServiceFleet } from './service-processes';
import { mergeSlices, ordersOf } from './turns';

interface Options {
  quick: boolean;
  instances: number | null;
  cpuProfile: boolean;
}

const ROOT = join(__dirname, '..');
/**
 * Rounds of the paired yardstick (see `PairedRound`) in a full run, whose median decides. Six since
 * rounds of one cell per side had to run each of their three orders twice (the later service in a
 * round read dearer: bench/results/0.4.md, "CPU levers of 0.4"); each round now runs every order in
 * its turns (`pairedRoundsOf`), and six kept a run's length and its median's room for one odd round.
 */
const PAIRED_ROUNDS = 6;
/**
 * Turns each side of a paired round takes in a full run (slices of 2 s of its 12): on a machine
 * whose speed drifts over tens of seconds, one cell per side let the drift decide. On `17ce340`,
 * two quiet full runs of 12 s cells read COUNTER ÷ floor at 1.06× and 1.34× (rounds 0.72× to
 * 1.77×, and autocannon's own CPU per request, the same work for both, 0.65× to 1.89× from one
 * cell to the next); the same two processes minutes later, in 2 s turns, read 1.22× to 1.33× over
 * four rounds (bench/results/0.4.md, "A paired round in turns").
 */
const PAIRED_SLICES = 6;
const PAIRED_CONCURRENCY = 64;
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

/** The floor fixture as the bench loads it: COUNTER's request, counted as COUNTER. */
const FLOOR_PLAN: ServicePlan = {
  label: 'floor: bare Apollo + the tutorial',
  strategy: 'COUNTER',
  shape: { strategy: 'COUNTER', usersPerRequest: 1 },
  blockSize: 1,
  blockSizeMax: 1,
  concurrencies: [PAIRED_CONCURRENCY],
};

/**
 * The paired rounds (see `PairedRound`): in each, the raw loop, the floor fixture and COUNTER take
 * turns at PAIRED_CONCURRENCY, `slices` turns each of `cellSeconds / slices`, each turn in another
 * order of the sides (`ordersOf`: with 6 turns, every order once, so each side comes first, second
 * and last twice and follows each other side equally often within the turns), and each side's
 * slices are merged into its cell (`mergeSlices`). Each service is warmed up once at the start of
 * its round (`warmupSeconds`, not measured): without it a service that had idled four cells (about
 * 50 s) read about 10% dearer per user than one that had idled one (bench/results/0.4.md, "CPU levers
 * of 0.4"); taking turns, no side idles longer than two slices.
 */
async function pairedRoundsOf(options: {
  rounds: number;
  slices: number;
  counting: CountingClient;
  rawDbName: string;
  floor: ServiceFleet | null;
  counter: { fleet: ServiceFleet; plan: ServicePlan };
  cellSeconds: number;
  warmupSeconds: number;
  databasePid: number | undefined;
  bar: ReturnType<typeof progress>;
}): Promise<PairedRound[]> {
  const { counting, floor, counter, databasePid, bar, slices } = options;
  const sliceSeconds = options.cellSeconds / slices;
  const sides: Array<{
    name: keyof PairedRound;
    /** Unmeasured load before the round's first turn; none for the raw loop. */
    warmUp?: () => Promise<void>;
    measure: () => Promise<CellResult>;
  }> = [
    {
      name: 'raw',
      measure: () =>
        runDriverBaseline({
          counting,
          dbName: options.rawDbName,
          baseline: 'TUTORIAL_GET_NEXT_SEQUENCE',
          concurrency: PAIRED_CONCURRENCY,
          durationMs: sliceSeconds * 1000,
          databasePid,
        }),
    },
    {
      name: 'counter',
      warmUp: () => warmUp(counter.fleet, counter.plan, options.warmupSeconds),
      measure: () =>
        measureServiceCell(
          counter.fleet,
          counter.plan,
          PAIRED_CONCURRENCY,
          sliceSeconds,
          databasePid,
        ),
    },
    ...(floor === null
      ? []
      : [
          {
            name: 'floor' as const,
            warmUp: () => warmUp(floor, FLOOR_PLAN, options.warmupSeconds),
            measure: () =>
              measureServiceCell(floor, FLOOR_PLAN, PAIRED_CONCURRENCY, sliceSeconds, databasePid),
          },
        ]),
  ];
  const orders = ordersOf(sides);
  const rounds: PairedRound[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    bar.cell(`paired round ${round} of ${options.rounds} @${PAIRED_CONCURRENCY}`);
    for (const side of sides) await side.warmUp?.();
    const slicesOf: Record<keyof PairedRound, CellResult[]> = { raw: [], counter: [], floor: [] };
    for (let turn = 0; turn < slices; turn += 1) {
      for (const side of orders[(round - 1 + turn) % orders.length]) {
        slicesOf[side.name].push(await side.measure());
      }
    }
    bar.cellDone();
    rounds.push({
      raw: mergeSlices(slicesOf.raw),
      counter: mergeSlices(slicesOf.counter),
      ...(floor === null ? {} : { floor: mergeSlices(slicesOf.floor) }),
    });
  }
  return rounds;
}

/** What a run decides up front from its options. */
interface RunPlan {
  options: Options;
  cellSeconds: number;
  warmupSeconds: number;
  plans: ServicePlan[];
  baselines: DriverBaseline[];
  pairedRounds: number;
  /** Turns per side in a paired round (see `PAIRED_SLICES`); one with `--quick`. */
  pairedSlices: number;
  totalCells: number;
}

function planRun(options: Options): RunPlan {
  const plans = servicePlans(options.instances);
  const baselines: DriverBaseline[] =
    options.instances === null ? (Object.keys(DRIVER_BASELINES) as DriverBaseline[]) : [];
  const pairedRounds = options.instances !== null ? 0 : options.quick ? 1 : PAIRED_ROUNDS;
  return {
    options,
    cellSeconds: options.quick ? 1.5 : 12,
    warmupSeconds: options.quick ? 1 : 3,
    plans,
    baselines,
    pairedRounds,
    pairedSlices: options.quick ? 1 : PAIRED_SLICES,
    totalCells:
      baselines.reduce((n, baseline) => n + baselineConcurrencies(baseline).length, 0) +
      plans.reduce((n, plan) => n + plan.concurrencies.length, 0) +
      pairedRounds,
  };
}

/**
 * The run's databases: a fresh name for each fleet and baseline, dropped once its cells are done,
 * so later cells meet a database holding only their own data; any left are dropped at the end.
 */
class RunDatabases {
  private readonly names: string[] = [];
  private readonly runId = Date.now().toString(36);

  constructor(private readonly counting: CountingClient) {}

  fresh(what: string): string {
    const name = `bench_${this.runId}_${what.replace(/[^A-Za-z0-9]+/g, '_')}`.slice(0, 60);
    this.names.push(name);
    return name;
  }

  drop(name: string): Promise<unknown> {
    return this.counting.client
      .db(name)
      .dropDatabase({ maxTimeMS: 10_000 })
      .catch(() => undefined);
  }

  async dropAll(): Promise<void> {
    await Promise.all(this.names.map((name) => this.drop(name)));
  }
}

type BenchDatabase = Awaited<ReturnType<typeof startBenchDatabase>>;

/**
 * Every fleet starts now, in parallel, while nothing is being measured; each idles until its
 * cells. Started fleets are added to `fleets` (the caller stops them) even when another fails.
 */
async function startFleets(
  run: RunPlan,
  database: BenchDatabase,
  dbNames: string[],
  fleets: ServiceFleet[],
): Promise<void> {
  const started = await Promise.allSettled(
    run.plans.map((plan, i) =>
      startServiceFleet({
        instances: run.options.instances ?? 1,
        mongodbUri: database.uri,
        dbName: dbNames[i],
        blockSize: plan.blockSize,
        blockSizeMax: plan.blockSizeMax,
        nodeArgs: run.options.cpuProfile
          ? ['--cpu-prof', '--cpu-prof-dir', join(__dirname, 'cpu-profiles')]
          : [],
      }),
    ),
  );
  for (const s of started) if (s.status === 'fulfilled') fleets.push(s.value);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The floor fixture's fleet for the paired rounds; none without paired rounds. */
function startFloorFleet(
  run: RunPlan,
  database: BenchDatabase,
  dbName: string,
): Promise<ServiceFleet> | null {
  if (run.pairedRounds === 0) return null;
  return startServiceFleet({
    instances: 1,
    mongodbUri: database.uri,
    dbName,
    blockSize: 1,
    blockSizeMax: 1,
    nodeArgs: ['--import', 'tsx'],
    entry: join(__dirname, 'floor-service.ts'),
  });
}

async function describeEnvironment(
  run: RunPlan,
  database: BenchDatabase,
  counting: CountingClient,
): Promise<RunEnvironment> {
  const { options } = run;
  return {
    mode: options.instances !== null ? 'instances' : options.quick ? 'quick' : 'full',
    startedAt: new Date().toISOString(),
    backend: database.backend,
    backendDescription: database.description,
    nodeVersion: process.version,
    ...(await versions(counting)),
    cores: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    cellSeconds: run.cellSeconds,
    loadAverage: { start: loadavg()[0], end: Number.NaN },
  };
}

/** What the measuring steps share. */
interface Measuring {
  run: RunPlan;
  database: BenchDatabase;
  counting: CountingClient;
  databases: RunDatabases;
  bar: ReturnType<typeof progress>;
}

/** Every concurrency for the raw tutorial loop, the yardstick at a burst too; the others' usual. */
function baselineConcurrencies(baseline: DriverBaseline): number[] {
  return baseline === 'TUTORIAL_GET_NEXT_SEQUENCE'
    ? [...CONCURRENCIES, ...BURST_CONCURRENCIES]
    : CONCURRENCIES;
}

/** The driver baselines, each at its concurrencies, each on its own database. */
async function measureBaselines({ run, database, counting, databases, bar }: Measuring) {
  const cells: CellResult[] = [];
  for (const baseline of run.baselines) {
    const dbName = databases.fresh(baseline);
    for (const concurrency of baselineConcurrencies(baseline)) {
      bar.cell(`${DRIVER_BASELINES[baseline]} @${concurrency}`);
      cells.push(
        await runDriverBaseline({
          counting,
          dbName,
          baseline,
          concurrency,
          durationMs: run.cellSeconds * 1000,
          databasePid: database.pid,
        }),
      );
      bar.cellDone();
    }
    await databases.drop(dbName);
  }
  return cells;
}

/**
 * Each plan's cells after a warm-up, on its fleet, which stops after them; after COUNTER's single
 * creates, the paired rounds (raw loop, floor, COUNTER) while its fleet is still warm.
 */
async function measurePlans(
  measuring: Measuring,
  fleets: ServiceFleet[],
  planDbNames: string[],
  floor: { fleet: ServiceFleet | null; dbName: string },
): Promise<{ cells: CellResult[]; rounds: PairedRound[] }> {
  const { run, database, counting, databases, bar } = measuring;
  const cells: CellResult[] = [];
  const rounds: PairedRound[] = [];
  for (const [i, plan] of run.plans.entries()) {
    const fleet = fleets[i];
    try {
      bar.note(`warming up ${plan.label}`);
      await warmUp(fleet, plan, run.warmupSeconds);
      for (const concurrency of plan.concurrencies) {
        bar.cell(`${plan.label} @${concurrency}`);
        cells.push(
          await measureServiceCell(fleet, plan, concurrency, run.cellSeconds, database.pid),
        );
        bar.cellDone();
      }
      if (plan.shape.strategy === 'COUNTER' && plan.shape.usersPerRequest === 1) {
        const rawDbName = databases.fresh('paired raw loop');
        rounds.push(
          ...(await pairedRoundsOf({
            rounds: run.pairedRounds,
            slices: run.pairedSlices,
            counting,
            rawDbName,
            floor: floor.fleet,
            counter: { fleet, plan },
            cellSeconds: run.cellSeconds,
            warmupSeconds: run.warmupSeconds,
            databasePid: database.pid,
            bar,
          })),
        );
        await floor.fleet?.stop();
        await Promise.all([databases.drop(rawDbName), databases.drop(floor.dbName)]);
      }
    } finally {
      await fleet.stop();
      await databases.drop(planDbNames[i]);
    }
  }
  return { cells, rounds };
}

/** Where the results go; a smoke run never overwrites the results of a full run. */
function resultsBase(options: Options): string {
  return join(
    __dirname,
    options.instances !== null
      ? `results-instances-${options.instances}${options.quick ? '-quick' : ''}`
      : `results${options.quick ? '-quick' : ''}`,
  );
}

async function main(): Promise<void> {
  const run = planRun(parseOptions(process.argv.slice(2)));
  const bar = progress(run.totalCells);
  bar.note('building the service (npm run build: nothing to do when the build is current)');
  await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT, timeout: BUILD_TIMEOUT_MS });
  bar.note('starting the database');
  const database = await startBenchDatabase();
  const counting = await connectCountingClient(database.uri);
  const databases = new RunDatabases(counting);
  const planDbNames = run.plans.map((plan) => databases.fresh(`${plan.label}_${plan.blockSize}`));
  const fleets: ServiceFleet[] = [];
  try {
    bar.note(`starting ${run.plans.length} × ${run.options.instances ?? 1} service process(es)`);
    await startFleets(run, database, planDbNames, fleets);
    const floorDbName = databases.fresh('paired floor');
    const floorFleet = await startFloorFleet(run, database, floorDbName);
    if (floorFleet !== null) fleets.push(floorFleet);

    const environment = await describeEnvironment(run, database, counting);
    const measuring: Measuring = { run, database, counting, databases, bar };
    const baselineCells = await measureBaselines(measuring);
    const { cells, rounds } = await measurePlans(measuring, fleets, planDbNames, {
      fleet: floorFleet,
      dbName: floorDbName,
    });
    bar.stop();
    environment.loadAverage.end = loadavg()[0];

    const base = resultsBase(run.options);
    process.stdout.write(
      await writeReport(
        {
          environment,
          cells: [...baselineCells, ...cells],
          ...(rounds.length > 0 ? { pairedRounds: rounds } : {}),
        },
        base,
      ),
    );
    process.stderr.write(`bench: wrote ${base}.json and ${base}.svg\n`);
  } finally {
    bar.stop();
    await Promise.all(fleets.map((fleet) => fleet.stop()));
    await databases.dropAll();
    await counting.close();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
