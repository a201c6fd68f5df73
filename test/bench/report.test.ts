import {
  CAVEAT,
  batchStrategy,
  cellsTable,
  chartSpec,
  counterModelTable,
  cpuPerUser,
  cpuVersusRawLoop,
  latencySummary,
  markdownReport,
  median,
  pairedTable,
  targetChecks,
  type BenchResults,
  type CellResult,
} from '../../bench/report';
import { cell } from './cell';

const environment: BenchResults['environment'] = {
  mode: 'full',
  startedAt: '2026-11-30T03:00:00.000Z',
  backend: 'standin',
  backendDescription: 'the MongoDB wire-protocol stand-in (in-memory, not MongoDB)',
  serverVersion: '7.0.0',
  nodeVersion: 'v20.20.2',
  driverVersion: '7.9.0',
  serviceVersion: '0.1.0',
  cores: 2,
  cpuModel: 'test cpu',
  cellSeconds: 10,
  loadAverage: { start: 0.5, end: 1.5 },
};

describe('latencySummary', () => {
  it('takes the nearest-rank percentiles of unsorted latencies', () => {
    const latencies = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1
    expect(latencySummary(latencies)).toEqual({ p50Ms: 50, p99Ms: 99 });
  });

  it('reports zero for a cell that completed nothing', () => {
    expect(latencySummary([])).toEqual({ p50Ms: 0, p99Ms: 0 });
  });
});

describe('cpuPerUser', () => {
  it('divides each side by the users created and keeps unmeasured sides null', () => {
    expect(cpuPerUser({ serviceMs: null, databaseMs: 300, clientMs: 150 }, 600)).toEqual({
      service: null,
      database: 0.5,
      client: 0.25,
    });
    expect(cpuPerUser({ serviceMs: 10, databaseMs: 10, clientMs: 10 }, 0)).toEqual({
      service: null,
      database: null,
      client: null,
    });
  });
});

const rawLoop = (concurrency: number, clientMs: number, extra: Partial<CellResult> = {}) =>
  cell('TUTORIAL_GET_NEXT_SEQUENCE', concurrency, {
    path: 'driver',
    instances: 0,
    cpuMsPerUser: { service: null, database: 0.2, client: clientMs },
    peakRssMb: null,
    ...extra,
  });

describe('cpuVersusRawLoop', () => {
  it("divides a service cell's CPU per user by the raw loop's client CPU at the same concurrency", () => {
    const cells = [rawLoop(1, 0.5), rawLoop(64, 0.25), cell('COUNTER', 64), cell('COUNTER', 8)];
    expect(cpuVersusRawLoop(cells[2], cells)).toBe(2);
    expect(cpuVersusRawLoop(cell('COUNTER', 1), cells)).toBe(1);
    // No raw loop at 8, and a driver cell is not the service.
    expect(cpuVersusRawLoop(cells[3], cells)).toBeNull();
    expect(cpuVersusRawLoop(cells[1], cells)).toBeNull();
  });

  it('is a column of the cells table', () => {
    const cells = [rawLoop(64, 0.25), cell('COUNTER', 64)];
    const table = cellsTable(cells).split('\n');
    expect(table[0]).toContain('| Service CPU ÷ raw loop client CPU |');
    expect(table[2]).toContain('| n/a / 0.20 / 0.25 | n/a | n/a |');
    expect(table[3]).toContain('| 0.50 / 0.25 / n/a | 2.00× | 120 |');
  });
});

describe('targetChecks', () => {
  const cells = [
    rawLoop(64, 0.25, { usersPerSecond: 1_000 }),
    cell('COUNTER', 64, { usersPerSecond: 700 }),
    cell('BLOCK', 64, { usersPerSecond: 1_000, commandsPerUser: 1.03, p50Ms: 10, p99Ms: 25 }),
    cell(batchStrategy(100), 64, { usersPerSecond: 7_000, peakRssMb: 210 }),
  ];
  const byTarget = (fragment: string) =>
    targetChecks(cells).find((t) => t.target.includes(fragment));

  it('compares COUNTER with the tutorial loop of the same concurrency', () => {
    expect(byTarget('60%')).toMatchObject({ issue: 5, measured: '70%', met: true });
    expect(byTarget('0.4×')).toMatchObject({ issue: 14, measured: '0.70×', met: true });
  });

  it("holds COUNTER's service CPU per user to twice the raw loop's client CPU per user", () => {
    expect(byTarget('2× the raw')).toMatchObject({ issue: 14, measured: '2.00×', met: true });
    const costly = [
      rawLoop(64, 0.25),
      cell('COUNTER', 64, { cpuMsPerUser: { service: 0.6, database: 0.2, client: null } }),
    ];
    expect(targetChecks(costly).find((t) => t.target.includes('2× the raw'))).toMatchObject({
      measured: '2.40×',
      met: false,
    });
  });

  it("holds BLOCK's p99 to twice its p50", () => {
    expect(byTarget('p99')).toMatchObject({ issue: 14, measured: '2.50×', met: false });
    const steady = targetChecks([cell('BLOCK', 64, { p50Ms: 10, p99Ms: 20 })]);
    expect(steady.find((t) => t.target.includes('p99'))).toMatchObject({ met: true });
  });

  it('predicts each throughput ratio from the CPU time per user of all processes', () => {
    const cpuCells = [
      cell('COUNTER', 64, { cpuMsPerUser: { service: 2, database: 0.5, client: 0.5 } }),
      cell('TUTORIAL_GET_NEXT_SEQUENCE', 64, {
        cpuMsPerUser: { service: null, database: 0.25, client: 0.75 },
      }),
    ];
    const vsRawLoop = targetChecks(cpuCells).find((t) => t.target.includes('60%'));
    expect(vsRawLoop).toMatchObject({ byCpu: '33%' });
  });

  it('flags a BLOCK cell above 1.01 commands per user and below 1.5× COUNTER', () => {
    expect(byTarget('1.01 commands')).toMatchObject({ measured: '1.030', met: false });
    const few = targetChecks([cell('BLOCK', 64, { commandsPerUser: 1.01 })]);
    expect(few.find((t) => t.target.includes('1.01 commands'))).toMatchObject({ met: true });
    expect(byTarget('1.5×')).toMatchObject({ measured: '1.43×', met: false });
  });

  it('compares batches with COUNTER and takes the highest RSS of any cell', () => {
    expect(byTarget('createUsers')).toMatchObject({ measured: '10.00×', met: true });
    expect(byTarget('RSS')).toMatchObject({ issue: 14, measured: '210 MB', met: false });
    const lean = targetChecks([cell('COUNTER', 64, { peakRssMb: 150 })]);
    expect(lean.find((t) => t.target.includes('RSS'))).toMatchObject({ met: true });
  });

  it("holds TRANSACTION to half of COUNTER's users/s and 0.1 transaction retries per user", () => {
    const slow = targetChecks([
      cell('COUNTER', 64, { usersPerSecond: 1_000 }),
      cell('TRANSACTION', 64, { usersPerSecond: 450, transactionRetriesPerUser: 0.25 }),
    ]);
    expect(slow.find((t) => t.target.includes('0.5× COUNTER'))).toMatchObject({
      issue: 22,
      measured: '0.45×',
      met: false,
    });
    expect(slow.find((t) => t.target.includes('transaction retries'))).toMatchObject({
      issue: 22,
      measured: '0.250',
      met: false,
    });
    const fast = targetChecks([
      cell('COUNTER', 64, { usersPerSecond: 1_000 }),
      cell('TRANSACTION', 64, { usersPerSecond: 500, transactionRetriesPerUser: 0.1 }),
    ]);
    expect(fast.filter((t) => t.issue === 22).map((t) => t.met)).toEqual([true, true]);
  });

  it('holds BLOCK and TRANSACTION@64 to the raw loop, their tails, and every counter-fed strategy through a burst of 512', () => {
    const steady = [
      cell('TUTORIAL_GET_NEXT_SEQUENCE', 64, { usersPerSecond: 1_000 }),
      cell('COUNTER', 64, { usersPerSecond: 800 }),
      cell('BLOCK', 64, { usersPerSecond: 1_100, commandsPerUser: 0.05, p50Ms: 10, p99Ms: 19 }),
      cell('TRANSACTION', 64, { usersPerSecond: 900, p50Ms: 10, p99Ms: 25 }),
    ];
    const burst = [
      cell('COUNTER', 512, { usersPerSecond: 760, p99Ms: 900 }),
      cell('BLOCK', 512, { usersPerSecond: 900, failedRequests: 3, retryableRefusals: 40 }),
      cell('TRANSACTION', 512, { usersPerSecond: 950, p99Ms: 16_000 }),
    ];
    const checks = targetChecks([...steady, ...burst]).filter((t) => t.issue === 37);
    const of = (fragment: string) => checks.find((t) => t.target.includes(fragment));
    expect(of('BLOCK@64 users/s ≥ 1.0× the raw')).toMatchObject({ measured: '1.10×', met: true });
    expect(of('TRANSACTION@64 users/s ≥ 1.0× the raw')).toMatchObject({
      measured: '0.90×',
      met: false,
    });
    expect(of('0.1 commands')).toMatchObject({ measured: '0.050', met: true });
    expect(of('TRANSACTION@64 p99')).toMatchObject({ measured: '2.50×', met: false });
    expect(of('COUNTER@512 users/s')).toMatchObject({ measured: '0.95×', met: true });
    expect(of('BLOCK@512 users/s')).toMatchObject({ measured: '0.82×', met: false });
    expect(of('BLOCK@512: no failed')).toMatchObject({ measured: '3 (40 refused)', met: false });
    expect(of('COUNTER@512: no failed')).toMatchObject({ met: true });
    expect(of('COUNTER@512 p99')).toMatchObject({ measured: '900 ms', met: true });
    expect(of('TRANSACTION@512 p99')).toMatchObject({ measured: '16000 ms', met: false });
    // A cell that no answer came back in has no p99 to meet the deadline with.
    const unanswered = targetChecks([cell('COUNTER', 512, { p50Ms: 0, p99Ms: 0 })]);
    expect(unanswered.find((t) => t.target.includes('COUNTER@512 p99'))).toMatchObject({
      measured: 'n/a',
      met: null,
    });
    // Without the burst cells, their targets say so.
    const unmeasured = targetChecks(steady).filter((t) => t.target.includes('@512'));
    expect(unmeasured).toHaveLength(9);
    for (const check of unmeasured) expect(check).toMatchObject({ measured: 'n/a', met: null });
  });

  it('shows transaction retries and write conflicts per user in the cells table', () => {
    const table = cellsTable([
      cell('TRANSACTION', 64, { transactionRetriesPerUser: 0.25, writeConflictsPerUser: 0.125 }),
    ]).split('\n');
    expect(table[0]).toContain(
      '| Dup-key retries/user | Txn retries/user | Write conflicts/user |',
    );
    expect(table[2]).toContain('| 0.000 | 0.250 | 0.125 |');
  });

  it('says a target was not measured when its cells are missing', () => {
    const checks = targetChecks([cell('COUNTER', 8)]);
    for (const fragment of ['60%', '2× the raw', 'p99', '1.01 commands']) {
      expect(checks.find((t) => t.target.includes(fragment))).toMatchObject({
        measured: 'n/a',
        met: null,
      });
    }
  });
});

describe('paired rounds', () => {
  const round = (rawClientMs: number, counterServiceMs: number, counterRate = 500) => ({
    raw: rawLoop(64, rawClientMs, { usersPerSecond: 1_000 }),
    counter: cell('COUNTER', 64, {
      usersPerSecond: counterRate,
      cpuMsPerUser: { service: counterServiceMs, database: 0.2, client: null },
    }),
  });
  // The grid's own pair says 2.40×: the paired rounds (1.80×, 2.20×, 1.90×) decide.
  const grid = [
    rawLoop(64, 0.25),
    cell('COUNTER', 64, { cpuMsPerUser: { service: 0.6, database: 0.2, client: null } }),
  ];
  const rounds = [round(0.5, 0.9, 400), round(0.5, 1.1, 300), round(0.5, 0.95, 450)];

  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it("reads issue 14's COUNTER-versus-raw targets from the median round, the grid's beside it", () => {
    const checks = targetChecks(grid, 64, rounds);
    expect(checks.find((t) => t.target.includes('2× the raw'))).toMatchObject({
      issue: 14,
      measured: '1.90× (median of 3 paired rounds, 1.80×–2.20×; grid cells 2.40×)',
      met: true,
    });
    expect(checks.find((t) => t.target.includes('0.4×'))).toMatchObject({
      measured: expect.stringMatching(/^0\.40× \(median of 3 paired rounds, 0\.30×–0\.45×/),
      met: true,
    });
    // Issue 5's 60% target stays on the grid's cells.
    expect(checks.find((t) => t.target.includes('60%'))?.measured).toBe('100%');
  });

  it('misses the CPU target when the median round is above 2×', () => {
    const costly = [round(0.5, 1.1), round(0.5, 1.05), round(0.5, 0.9)];
    expect(
      targetChecks(grid, 64, costly).find((t) => t.target.includes('2× the raw')),
    ).toMatchObject({ met: false });
  });

  it("with the floor fixture, splits COUNTER's cost into the stack's and the project's own", () => {
    const withFloor = rounds.map((r, i) => ({
      ...r,
      floor: cell('COUNTER', 64, {
        cpuMsPerUser: { service: [0.8, 0.8, 0.76][i], database: 0.2, client: null },
      }),
    }));
    const table = pairedTable(withFloor);
    expect(table).toContain(
      '| 1 | 0.500 | 0.800 | 0.900 | 1.80× | 1.60× | 1.13× | 1000 | 400 | 0.40× |',
    );
    expect(table).toContain('costs 1.60× the raw loop');
    expect(table).toContain("COUNTER costs 1.25× the floor's");
    // The verdicts stay COUNTER against the raw loop.
    expect(
      targetChecks(grid, 64, withFloor).find((t) => t.target.includes('2× the raw'))?.measured,
    ).toMatch(/^1\.90×/);
  });

  it('lists every round with both ratios, and the report carries the table', () => {
    const table = pairedTable(rounds);
    expect(table).toContain('| 1 | 0.500 | 0.900 | 1.80× | 1000 | 400 | 0.40× |');
    expect(table.split('\n')).toHaveLength(2 + rounds.length);
    expect(markdownReport({ environment, cells: grid, pairedRounds: rounds })).toContain(table);
  });
});

describe('counterModelTable', () => {
  it('sets measured counter writes per second beside users per second ÷ block size', () => {
    const table = counterModelTable([
      cell('BLOCK', 64, {
        label: 'BLOCK (block 100)',
        blockSize: 100,
        instances: 4,
        usersPerSecond: 2_000,
        users: 20_000,
        counterWrites: 240,
      }),
    ]);
    const row = table
      .split('\n')[2]
      .split('|')
      .map((c) => c.trim());
    // label, instances, concurrency, users/s, writes, writes/s, writes/user, model, ratio
    expect(row.slice(1, 10)).toEqual([
      'BLOCK (block 100)',
      '4',
      '64',
      '2000',
      '240',
      '24.0',
      '0.0120',
      '20.0',
      '1.20',
    ]);
  });

  it('gives no ratio for a cell with fewer users than the instances hold in blocks', () => {
    const table = counterModelTable([
      cell('BLOCK', 64, { blockSize: 1000, instances: 4, users: 1300, counterWrites: 0 }),
    ]);
    expect(table).toContain('| n/a (< 4 × 1000 users) |');
  });
});

describe('markdownReport', () => {
  it('names the backend, versions and cores, and says to compare ratios', () => {
    const report = markdownReport({ environment, cells: [cell('COUNTER', 1)] });
    expect(report).toContain('stand-in (in-memory, not MongoDB)');
    expect(report).toContain('mongodb driver 7.9.0');
    expect(report).toContain('2 cores');
    expect(report).toContain('load average 0.5 at start, 1.5 at end\n');
    const busy = { ...environment, loadAverage: { start: 9, end: 1 } };
    expect(markdownReport({ environment: busy, cells: [] })).toContain(
      'above the core count, so other work competed',
    );
    expect(report).toContain(CAVEAT);
    expect(report).toMatch(/\| COUNTER \| 1 \| 1000 \| 5\.0 \| 20\.0 \| 4\.00× \| 2\.000 \|/);
    expect(report).toContain('| 0.50 / 0.25 / n/a |');
    expect(report).toContain(
      '| Issue | Target | Measured | Verdict | Same ratio from CPU per user |',
    );
  });
});

describe('chartSpec', () => {
  it('plots one bar per strategy and concurrency, in run order', () => {
    const spec = chartSpec({
      environment,
      cells: [cell('COUNTER', 1, { usersPerSecond: 10.4 }), cell('COUNTER', 64)],
    }) as { data: { values: unknown[] }; encoding: Record<string, { field: string }> };
    expect(spec.data.values).toEqual([
      { label: 'COUNTER', concurrency: '1', usersPerSecond: 10 },
      { label: 'COUNTER', concurrency: '64', usersPerSecond: 1000 },
    ]);
    expect(spec.encoding.x.field).toBe('usersPerSecond');
    expect(spec.encoding.yOffset.field).toBe('concurrency');
  });
});
