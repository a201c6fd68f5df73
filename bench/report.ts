/**
 * What a benchmark run says: the Markdown table on stdout, `results.json`, and the SVG chart of
 * users per second by strategy and concurrency.
 *
 * Contract: everything here except `writeReport` and `renderChartSvg` is a pure function of the
 * cell results and the run's environment, so the report can be tested without running a benchmark.
 * Every report names the database backend, the versions and the core count, and says that absolute
 * figures vary between runs and machines while the ratios are what to compare. Targets (issues 5,
 * 14 and 22), the service's CPU per user against the raw tutorial loop's client CPU per user, and
 * the counter-write model (issue 8) are computed from the cells of the same run, never from
 * figures of another run.
 */
import { writeFile } from 'node:fs/promises';
import type { CpuSplit } from './process-usage';

/** One measured cell: one way of creating users at one concurrency. */
export interface CellResult {
  /** `service`: GraphQL over HTTP to the service process(es); `driver`: straight on the driver. */
  path: 'service' | 'driver';
  label: string;
  strategy: string;
  concurrency: number;
  /** Service processes behind the round-robin client; 0 for driver cells. */
  instances: number;
  /** `ID_BLOCK_SIZE` of the service processes, where it matters (BLOCK cells). */
  blockSize?: number;
  durationS: number;
  users: number;
  usersPerSecond: number;
  /** Per request: a `createUsers` request creates a whole batch. */
  p50Ms: number;
  p99Ms: number;
  commandsPerUser: number | null;
  duplicateKeyRetriesPerUser: number | null;
  /**
   * Transactions run again and commits sent again per user (the service's
   * `sequential_ids_user_transaction_retries_total`), and of those the write conflicts; null for driver cells.
   */
  transactionRetriesPerUser: number | null;
  writeConflictsPerUser: number | null;
  /**
   * Requests that failed: no answer (transport errors, timeouts) or an error the service does not
   * mark retryable (bench/http-load.ts).
   */
  failedRequests: number;
  /** Requests refused with an error marked `retryable: true` (503 at the deadline, ID_CONTENTION). */
  retryableRefusals: number;
  /**
   * CPU milliseconds per created user: service process(es), database process, bench process (the
   * driver's client side for driver cells, autocannon for service cells). Null: not measured.
   */
  cpuMsPerUser: { service: number | null; database: number | null; client: number | null };
  /** Highest resident set size of any one service process during the cell. */
  peakRssMb: number | null;
  /** Writes to counter documents, summed over the instances' `sequential_ids_counter_document_writes_total`. */
  counterWrites?: number;
}

export interface RunEnvironment {
  mode: 'quick' | 'full' | 'instances';
  startedAt: string;
  /** `uri`, `memory-server` or `standin`. */
  backend: string;
  backendDescription: string;
  serverVersion: string;
  nodeVersion: string;
  driverVersion: string;
  serviceVersion: string;
  cores: number;
  cpuModel: string;
  cellSeconds: number;
  /** 1-minute load average when the run started and when it ended: other work competes. */
  loadAverage: { start: number; end: number };
}

/**
 * One round of the paired yardstick: the raw tutorial loop and `createUser` COUNTER (and the floor),
 * measured in turns at the same concurrency, so both meet the same machine. Issue 14's two
 * COUNTER-versus-raw targets are read from the median over the rounds: on a shared machine one
 * cell's CPU per user moves by ±10% from one minute to the next, so a single pair of cells minutes
 * apart decides little. Each side of a round is its slices merged (`mergeSlices`): the sides take
 * turns every few seconds rather than once per round (bench/run.ts, `PAIRED_SLICES`).
 */
export interface PairedRound {
  raw: CellResult;
  counter: CellResult;
  /**
   * The floor fixture (bench/floor-service.ts: bare Apollo on `node:http` with the tutorial's two
   * commands), which splits COUNTER's cost into the stack's (floor ÷ raw) and this project's own
   * (COUNTER ÷ floor).
   */
  floor?: CellResult;
}

export interface BenchResults {
  environment: RunEnvironment;
  cells: CellResult[];
  /** None in instances runs. */
  pairedRounds?: PairedRound[];
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Service CPU per user of `a` over that of `b`; null when either is unmeasured. */
function serviceCpuRatio(a: CellResult | undefined, b: CellResult | undefined): number | null {
  const [cpuA, cpuB] = [a?.cpuMsPerUser.service, b?.cpuMsPerUser.service];
  return cpuA == null || !cpuB ? null : cpuA / cpuB;
}

/**
 * Per paired round: COUNTER's CPU and users/s as multiples of the raw loop's, and, with a floor,
 * the floor's CPU over the raw loop's and COUNTER's over the floor's (null: unmeasured).
 */
export function pairedRatios(rounds: PairedRound[]): Array<{
  cpu: number | null;
  rate: number | null;
  floorVsRaw: number | null;
  counterVsFloor: number | null;
}> {
  return rounds.map(({ raw, counter, floor }) => ({
    cpu: cpuVersusRawLoop(counter, [raw]),
    rate: raw.usersPerSecond > 0 ? counter.usersPerSecond / raw.usersPerSecond : null,
    floorVsRaw: floor === undefined ? null : cpuVersusRawLoop(floor, [raw]),
    counterVsFloor: serviceCpuRatio(counter, floor),
  }));
}

export const CAVEAT =
  'Absolute figures vary between runs and machines (and here the database, the service and the ' +
  'load generator share the same cores); the ratios between rows of one run are what to compare.';

/** CPU per user from a cell's CPU split; null where unmeasured or nothing was created. */
export function cpuPerUser(split: CpuSplit, users: number): CellResult['cpuMsPerUser'] {
  const per = (ms: number | null): number | null =>
    ms === null || users === 0 ? null : ms / users;
  return {
    service: per(split.serviceMs),
    database: per(split.databaseMs),
    client: per(split.clientMs),
  };
}

export function latencySummary(latenciesMs: number[]): { p50Ms: number; p99Ms: number } {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const at = (p: number): number =>
    sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  return { p50Ms: at(0.5), p99Ms: at(0.99) };
}

const fixed = (value: number | null | undefined, digits: number): string =>
  value === null || value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);

const times = (ratio: number | null): string => (ratio === null ? 'n/a' : `${fixed(ratio, 2)}×`);

const cpuSplit = (c: CellResult): string =>
  [c.cpuMsPerUser.service, c.cpuMsPerUser.database, c.cpuMsPerUser.client]
    .map((ms) => fixed(ms, 2))
    .join(' / ');

/** The driver cell of the tutorial's raw loop: the yardstick of issue 14. */
const RAW_LOOP = 'TUTORIAL_GET_NEXT_SEQUENCE';

/**
 * A service cell's CPU per user divided by the raw tutorial loop's client CPU per user at the same
 * concurrency (the same two commands on the bare driver): how many times the raw loop's cost the
 * service spends per user. Null for driver cells and where either side was not measured.
 */
export function cpuVersusRawLoop(cell: CellResult, cells: CellResult[]): number | null {
  const raw = cells.find((c) => c.strategy === RAW_LOOP && c.concurrency === cell.concurrency);
  const service = cell.cpuMsPerUser.service;
  const client = raw?.cpuMsPerUser.client;
  return cell.path !== 'service' || service === null || !client ? null : service / client;
}

function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function environmentLines(env: RunEnvironment): string[] {
  return [
    `- Database: ${env.backendDescription} (reports version ${env.serverVersion})`,
    `- Node ${env.nodeVersion}, mongodb driver ${env.driverVersion}, service ${env.serviceVersion}`,
    `- ${env.cores} cores (${env.cpuModel}); ${env.cellSeconds} s per cell; ` +
      `started ${env.startedAt}`,
    `- 1-minute load average ${env.loadAverage.start.toFixed(1)} at start, ` +
      `${env.loadAverage.end.toFixed(1)} at end` +
      (Math.max(env.loadAverage.start, env.loadAverage.end) > env.cores
        ? ': above the core count, so other work competed with the run for the cores'
        : ''),
    `- ${CAVEAT}`,
  ];
}

export function cellsTable(cells: CellResult[]): string {
  const header = [
    'Strategy',
    'Concurrency',
    'Users/s',
    'p50 ms',
    'p99 ms',
    'p99 ÷ p50',
    'Commands/user',
    'Dup-key retries/user',
    'Txn retries/user',
    'Write conflicts/user',
    'CPU ms/user (service / db / client)',
    'Service CPU ÷ raw loop client CPU',
    'Peak RSS MB',
    'Failed requests',
    'Retryable refusals',
  ];
  const rows = cells.map((c) => [
    c.label,
    String(c.concurrency),
    fixed(c.usersPerSecond, 0),
    fixed(c.p50Ms, 1),
    fixed(c.p99Ms, 1),
    times(tailRatio(c)),
    fixed(c.commandsPerUser, 3),
    fixed(c.duplicateKeyRetriesPerUser, 3),
    fixed(c.transactionRetriesPerUser, 3),
    fixed(c.writeConflictsPerUser, 3),
    cpuSplit(c),
    times(cpuVersusRawLoop(c, cells)),
    fixed(c.peakRssMb, 0),
    String(c.failedRequests),
    String(c.retryableRefusals),
  ]);
  return markdownTable(header, rows);
}

/** A cell's p99 over its p50: how far its tail reaches beyond its middle. */
function tailRatio(cell: CellResult | undefined): number | null {
  return cell && cell.p50Ms > 0 ? cell.p99Ms / cell.p50Ms : null;
}

export interface TargetCheck {
  /** The issue that set the target. */
  issue: number;
  target: string;
  measured: string;
  met: boolean | null;
  /**
   * For throughput ratios: the same ratio predicted from CPU time per user of all the run's
   * processes, which other work on a shared machine disturbs far less than users per second.
   */
  byCpu: string;
}

/** CPU milliseconds per user summed over every measured process; null when none was measured. */
export function totalCpuMsPerUser(cell: CellResult): number | null {
  const sides = Object.values(cell.cpuMsPerUser).filter((ms): ms is number => ms !== null);
  return sides.length === 0 ? null : sides.reduce((a, b) => a + b, 0);
}

const findCell = (cells: CellResult[], strategy: string, concurrency: number) =>
  cells.find((c) => c.strategy === strategy && c.concurrency === concurrency);

/** The `createUsers` cells' strategy label for batches of `size`. */
export const batchStrategy = (size: number): string => `CREATE_USERS_BATCH_${size}`;

/** A target on one measured figure: `met` is null when the figure is missing. */
function bound(
  issue: number,
  target: string,
  value: number | null | undefined,
  isMet: (value: number) => boolean,
  format: (value: number | null) => string,
): TargetCheck {
  const known = value === null || value === undefined ? null : value;
  return {
    issue,
    target,
    measured: format(known),
    met: known === null ? null : isMet(known),
    byCpu: '',
  };
}

/**
 * Issues 14 and 5's targets, each from cells of this run; `met` is null when a cell is missing. With
 * paired rounds, issue 14's COUNTER-versus-raw targets are their median (see `PairedRound`).
 */
/** `a`'s users/s over `b`'s at one concurrency, measured and as predicted by CPU per user. */
function throughput(
  cells: CellResult[],
  concurrency: number,
  issue: number,
  target: string,
  [a, b]: [string, string],
  minimum: number,
  format: (ratio: number | null) => string,
): TargetCheck {
  const pair = [findCell(cells, a, concurrency), findCell(cells, b, concurrency)] as const;
  return usersPerSecondRatio(issue, target, pair, minimum, format);
}

/** Cell `a`'s users/s over cell `b`'s, measured and as predicted by CPU per user. */
function usersPerSecondRatio(
  issue: number,
  target: string,
  [cellA, cellB]: readonly [CellResult | undefined, CellResult | undefined],
  minimum: number,
  format: (ratio: number | null) => string,
): TargetCheck {
  const ratio =
    cellA && cellB && cellB.usersPerSecond > 0 ? cellA.usersPerSecond / cellB.usersPerSecond : null;
  const [cpuA, cpuB] = [cellA && totalCpuMsPerUser(cellA), cellB && totalCpuMsPerUser(cellB)];
  const byCpu = cpuA && cpuB ? cpuB / cpuA : null;
  return {
    issue,
    target,
    measured: ratio === null ? 'n/a' : format(ratio),
    met: ratio === null ? null : ratio >= minimum,
    byCpu: byCpu === null ? 'n/a' : format(byCpu),
  };
}

/** A COUNTER-versus-raw target read from the paired rounds' median, the grid's figure beside it. */
function paired(
  ratios: Array<number | null>,
  grid: TargetCheck,
  isMet: (ratio: number) => boolean,
): TargetCheck {
  const known = ratios.filter((r): r is number => r !== null);
  if (known.length === 0) return grid;
  const mid = median(known);
  const range = `${times(Math.min(...known))}–${times(Math.max(...known))}`;
  return {
    ...grid,
    measured: `${times(mid)} (median of ${known.length} paired rounds, ${range}; grid cells ${grid.measured})`,
    met: isMet(mid),
  };
}

const percent = (ratio: number | null) => `${fixed((ratio ?? 0) * 100, 0)}%`;

/** Issue 14's targets: COUNTER against the raw loop, BLOCK's tail and commands, peak RSS. */
function issue14Checks(cells: CellResult[], c: number, rounds: PairedRound[]): TargetCheck[] {
  const ratios = pairedRatios(rounds);
  const counter = findCell(cells, 'COUNTER', c);
  const block = findCell(cells, 'BLOCK', c);
  const rss = cells.map((cell) => cell.peakRssMb).filter((m): m is number => m !== null);
  return [
    paired(
      ratios.map((r) => r.cpu),
      bound(
        14,
        `COUNTER@${c} service CPU per user ≤ 2× the raw tutorial loop's client CPU per user`,
        counter && cpuVersusRawLoop(counter, cells),
        (ratio) => ratio <= 2,
        times,
      ),
      (ratio) => ratio <= 2,
    ),
    paired(
      ratios.map((r) => r.rate),
      throughput(
        cells,
        c,
        14,
        `COUNTER@${c} users/s ≥ 0.4× the raw tutorial loop`,
        ['COUNTER', RAW_LOOP],
        0.4,
        times,
      ),
      (ratio) => ratio >= 0.4,
    ),
    bound(14, `BLOCK@${c} p99 ≤ 2× its p50`, tailRatio(block), (ratio) => ratio <= 2, times),
    bound(
      14,
      `BLOCK ≤ 1.01 commands per user (@${c})`,
      block?.commandsPerUser,
      (commands) => commands <= 1.01,
      (commands) => fixed(commands, 3),
    ),
    bound(
      14,
      'Peak service RSS ≤ 150 MB in every cell',
      rss.length === 0 ? null : Math.max(...rss),
      (mb) => mb <= 150,
      (mb) => (mb === null ? 'n/a' : `${fixed(mb, 0)} MB`),
    ),
  ];
}

/** Issue 5's throughput targets: COUNTER against the raw loop, BLOCK and batches against COUNTER. */
function issue5Checks(cells: CellResult[], c: number): TargetCheck[] {
  return [
    throughput(
      cells,
      c,
      5,
      `COUNTER@${c} ≥ 60% of the tutorial's raw driver loop`,
      ['COUNTER', RAW_LOOP],
      0.6,
      percent,
    ),
    throughput(
      cells,
      c,
      5,
      `BLOCK@${c} ≥ 1.5× COUNTER@${c} users/s`,
      ['BLOCK', 'COUNTER'],
      1.5,
      times,
    ),
    throughput(
      cells,
      c,
      5,
      `createUsers batches of 100@${c} ≥ 5× COUNTER@${c} users/s`,
      [batchStrategy(100), 'COUNTER'],
      5,
      times,
    ),
  ];
}

/**
 * Issue 22's TRANSACTION targets: half of COUNTER's users/s, and few transaction retries from one
 * instance (in one process, transactions on the counter take turns, so only other processes'
 * transactions should conflict).
 */
function issue22Checks(cells: CellResult[], c: number): TargetCheck[] {
  return [
    throughput(
      cells,
      c,
      22,
      `TRANSACTION@${c} ≥ 0.5× COUNTER@${c} users/s`,
      ['TRANSACTION', 'COUNTER'],
      0.5,
      times,
    ),
    bound(
      22,
      `TRANSACTION@${c} ≤ 0.1 transaction retries per user (one instance)`,
      findCell(cells, 'TRANSACTION', c)?.transactionRetriesPerUser,
      (retries) => retries <= 0.1,
      (retries) => fixed(retries, 3),
    ),
  ];
}

/** The burst the bench loads the counter-fed strategies with (see bench/service-cells.ts). */
export const BURST_CONCURRENCY = 512;
/** The service's default REQUEST_TIMEOUT_MS (src/config.ts), which the bench's fleets run with. */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * Issue 37's targets: BLOCK and TRANSACTION at least as fast as the raw tutorial loop, BLOCK's
 * grouped inserts, their tails, and a burst of 512 in flight that keeps each strategy's
 * throughput with nothing failing beyond retryable refusals and every answer within the deadline.
 */
function issue37Checks(cells: CellResult[], c: number): TargetCheck[] {
  const burst = BURST_CONCURRENCY;
  const burstChecks = ['COUNTER', 'BLOCK', 'TRANSACTION'].flatMap((strategy) => {
    const [steady, loaded] = [findCell(cells, strategy, c), findCell(cells, strategy, burst)];
    return [
      usersPerSecondRatio(
        37,
        `${strategy}@${burst} users/s ≥ 0.9× ${strategy}@${c}`,
        [loaded, steady],
        0.9,
        times,
      ),
      bound(
        37,
        `${strategy}@${burst}: no failed request (retryable refusals aside)`,
        loaded?.failedRequests,
        (failed) => failed === 0,
        (failed) => (failed === null ? 'n/a' : `${failed} (${loaded?.retryableRefusals} refused)`),
      ),
      bound(
        37,
        `${strategy}@${burst} p99 within REQUEST_TIMEOUT_MS (${REQUEST_TIMEOUT_MS / 1_000} s)`,
        // 0: no answer came back within the cell (autocannon's percentiles of nothing).
        loaded && loaded.p99Ms > 0 ? loaded.p99Ms : null,
        (ms) => ms <= REQUEST_TIMEOUT_MS,
        (ms) => (ms === null ? 'n/a' : `${fixed(ms, 0)} ms`),
      ),
    ];
  });
  return [
    throughput(
      cells,
      c,
      37,
      `BLOCK@${c} users/s ≥ 1.0× the raw tutorial loop`,
      ['BLOCK', RAW_LOOP],
      1,
      times,
    ),
    throughput(
      cells,
      c,
      37,
      `TRANSACTION@${c} users/s ≥ 1.0× the raw tutorial loop`,
      ['TRANSACTION', RAW_LOOP],
      1,
      times,
    ),
    bound(
      37,
      `BLOCK ≤ 0.1 commands per user (@${c})`,
      findCell(cells, 'BLOCK', c)?.commandsPerUser,
      (commands) => commands <= 0.1,
      (commands) => fixed(commands, 3),
    ),
    bound(
      37,
      `TRANSACTION@${c} p99 ≤ 2× its p50`,
      tailRatio(findCell(cells, 'TRANSACTION', c)),
      (ratio) => ratio <= 2,
      times,
    ),
    ...burstChecks,
  ];
}

export function targetChecks(
  cells: CellResult[],
  concurrency = 64,
  rounds: PairedRound[] = [],
): TargetCheck[] {
  return [
    ...issue14Checks(cells, concurrency, rounds),
    ...issue5Checks(cells, concurrency),
    ...issue22Checks(cells, concurrency),
    ...issue37Checks(cells, concurrency),
  ];
}

const verdict = (met: boolean | null): string =>
  met === null ? 'not measured' : met ? 'met' : 'MISSED';

/** Issue 8's model: counter-document writes per second = users per second ÷ block size. */
export function counterModelTable(cells: CellResult[]): string {
  const rows = cells
    .filter((c) => c.counterWrites !== undefined)
    .map((c) => {
      const blockSize = c.blockSize ?? 1;
      const measured = (c.counterWrites ?? 0) / c.durationS;
      const model = c.usersPerSecond / blockSize;
      return [
        c.label,
        String(c.instances),
        String(c.concurrency),
        fixed(c.usersPerSecond, 0),
        String(c.counterWrites),
        fixed(measured, 1),
        fixed(c.users === 0 ? null : (c.counterWrites ?? 0) / c.users, 4),
        fixed(model, 1),
        // Counter writes come in whole blocks, and each instance may hold a block's worth of ids
        // from before the cell: a cell with fewer users than that says nothing about the ratio.
        c.users < c.instances * blockSize
          ? `n/a (< ${c.instances} × ${blockSize} users)`
          : fixed(model === 0 ? null : measured / model, 2),
        cpuSplit(c),
        fixed(c.peakRssMb, 0),
      ];
    });
  return markdownTable(
    [
      'Strategy',
      'Instances',
      'Concurrency',
      'Users/s',
      'Counter writes',
      'Counter writes/s (measured)',
      'Counter writes/user',
      'Model: users/s ÷ block size',
      'Measured ÷ model',
      'CPU ms/user (service / db / client)',
      'Peak RSS MB',
    ],
    rows,
  );
}

/** The paired yardstick's rounds, each with its ratios; the floor's columns when it ran. */
export function pairedTable(rounds: PairedRound[]): string {
  const ratios = pairedRatios(rounds);
  const withFloor = rounds.some((round) => round.floor !== undefined);
  const header = [
    `Paired round (@${rounds[0]?.counter.concurrency ?? 64})`,
    'Raw loop client CPU ms/user',
    ...(withFloor ? ['Floor service CPU ms/user'] : []),
    'COUNTER service CPU ms/user',
    'CPU ratio',
    ...(withFloor ? ['Floor ÷ raw', 'COUNTER ÷ floor'] : []),
    'Raw loop users/s',
    'COUNTER users/s',
    'Users/s ratio',
  ];
  const rows = rounds.map(({ raw, counter, floor }, i) => [
    String(i + 1),
    fixed(raw.cpuMsPerUser.client, 3),
    ...(withFloor ? [fixed(floor?.cpuMsPerUser.service, 3)] : []),
    fixed(counter.cpuMsPerUser.service, 3),
    times(ratios[i].cpu),
    ...(withFloor ? [times(ratios[i].floorVsRaw), times(ratios[i].counterVsFloor)] : []),
    fixed(raw.usersPerSecond, 0),
    fixed(counter.usersPerSecond, 0),
    times(ratios[i].rate),
  ]);
  const table = markdownTable(header, rows);
  if (!withFloor) return table;
  const middle = (values: Array<number | null>) => {
    const known = values.filter((v): v is number => v !== null);
    return known.length === 0 ? null : median(known);
  };
  return (
    `${table}\n\nMedians: the floor (bare Apollo on node:http with the tutorial's two commands) ` +
    `costs ${times(middle(ratios.map((r) => r.floorVsRaw)))} the raw loop's CPU per user; ` +
    `COUNTER costs ${times(middle(ratios.map((r) => r.counterVsFloor)))} the floor's.`
  );
}

export function markdownReport(results: BenchResults): string {
  const { environment, cells, pairedRounds = [] } = results;
  const sections = [
    `# Sequential ids benchmark (${environment.mode})`,
    environmentLines(environment).join('\n'),
  ];
  if (environment.mode === 'instances') {
    sections.push(counterModelTable(cells));
  } else {
    sections.push(cellsTable(cells));
    if (pairedRounds.length > 0) sections.push(pairedTable(pairedRounds));
    const targets = targetChecks(cells, 64, pairedRounds);
    sections.push(
      markdownTable(
        ['Issue', 'Target', 'Measured', 'Verdict', 'Same ratio from CPU per user'],
        targets.map((t) => [String(t.issue), t.target, t.measured, verdict(t.met), t.byCpu]),
      ),
    );
  }
  return sections.join('\n\n') + '\n';
}

/** The vega-lite spec of the chart: users/s per strategy, one bar per concurrency. */
export function chartSpec(results: BenchResults): Record<string, unknown> {
  const { environment, cells } = results;
  const byInstances = environment.mode === 'instances';
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: byInstances
        ? `Users per second with ${cells[0]?.instances ?? '?'} service instances`
        : 'Users per second by strategy and concurrency',
      subtitle: [
        `database: ${environment.backend}, node ${environment.nodeVersion}, ` +
          `${environment.cores} cores, ${environment.cellSeconds} s per cell`,
        'Absolute figures vary between runs and machines; compare the ratios.',
      ],
    },
    width: 520,
    height: 300,
    data: {
      values: cells.map((c) => ({
        label: c.label,
        concurrency: String(c.concurrency),
        usersPerSecond: Math.round(c.usersPerSecond),
      })),
    },
    encoding: {
      y: {
        field: 'label',
        type: 'nominal',
        title: null,
        sort: null,
        axis: { labelLimit: 400 },
      },
      yOffset: { field: 'concurrency', sort: null },
      // Log scale: ratios are what to compare, and batches outrun single creates by far.
      x: {
        field: 'usersPerSecond',
        type: 'quantitative',
        title: 'users per second (log scale)',
        scale: { type: 'log', domainMin: 1, clamp: true },
      },
      color: { field: 'concurrency', type: 'nominal', title: 'concurrency', sort: null },
    },
    layer: [
      { mark: { type: 'bar', tooltip: true } },
      {
        mark: { type: 'text', align: 'left', dx: 3, fontSize: 9 },
        encoding: {
          text: { field: 'usersPerSecond', type: 'quantitative' },
          color: { value: '#333' },
        },
      },
    ],
  };
}

/** Renders the vega-lite spec to SVG headlessly (vega and vega-lite are ESM, hence `import()`). */
export async function renderChartSvg(spec: Record<string, unknown>): Promise<string> {
  const vegaLite = await import('vega-lite');
  const vega = await import('vega');
  const compiled = vegaLite.compile(spec as never).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Writes `<base>.json` and `<base>.svg`; returns the Markdown report for stdout. */
export async function writeReport(results: BenchResults, base: string): Promise<string> {
  const svg = await renderChartSvg(chartSpec(results));
  await writeFile(`${base}.json`, JSON.stringify(results, null, 2) + '\n');
  await writeFile(`${base}.svg`, svg);
  return markdownReport(results);
}
