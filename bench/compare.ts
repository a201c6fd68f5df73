/**
 * `npm run bench:compare -- [--strategy S] [--concurrency C] [--users-per-request U] [--seconds N]
 * [--rounds R] [--together] [--node-args FLAGS] [--env KEY=VALUE ...] A [--node-args FLAGS] B ...`: one cell (COUNTER `createUser` at
 * concurrency 64 unless told otherwise; U > 1 loads `createUsers` batches of U) measured on several
 * builds of the service in one session, round after round (A B A B ...), so a change's before and
 * after meet the same machine load. Each build is a built entry point (`dist/main.js` of some
 * checkout, or a build of it elsewhere that can resolve this checkout's node_modules and schema),
 * run with the `node` flags (space-separated) of the `--node-args` just before it, if any, and the
 * environment of the `--env` options just before it (e.g. `BUDGETS=off`, an OTLP endpoint): the
 * same build twice with different flags or environments compares them.
 *
 * Contract: every build runs as one process of its own, as in `npm run bench`, on its own fresh
 * database of one database process (dropped at the end); all start up front and idle between their turns; each is
 * warmed up once. Prints, per build, the median over the rounds of service CPU per user, users
 * per second, p50 and p99, and each median's ratio to the first build's; rounds alternate the
 * order so neither build always follows the other. Bounded: 1 to 60 s per cell, 1 to 9 rounds.
 * `--together` loads every build at once in each round (each with its own connections), so all
 * meet the same moment of a machine whose load changes from one cell to the next (other work on a
 * shared machine): their ratios round by round are then steadier than alternating cells give, at
 * the price of absolute figures (they share the cores) and of the database's CPU, which is theirs
 * together and not reported per build. Not free of order: the same build twice read the second
 * 0.97× the first (7 rounds), so run both orders and take the geometric mean of the two ratios.
 */
import { MongoClient } from 'mongodb';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { isIdStrategy } from '../src/strategies';
import { startBenchDatabase } from './database';
import { type LoadShape } from './http-load';
import { median, type CellResult } from './report';
import { measureServiceCell, warmUp, type ServicePlan } from './service-cells';
import { startServiceFleet, type ServiceFleet } from './service-processes';

interface Options {
  strategy: LoadShape['strategy'];
  concurrency: number;
  seconds: number;
  usersPerRequest: number;
  rounds: number;
  together: boolean;
  entries: { entry: string; nodeArgs: string[]; env: Record<string, string> }[];
}

const WARM_UP_SECONDS = 3;

function parseOptions(argv: string[]): Options {
  const options: Options = {
    strategy: 'COUNTER',
    concurrency: 64,
    seconds: 8,
    usersPerRequest: 1,
    rounds: 3,
    together: false,
    entries: [],
  };
  let nodeArgs: string[] = [];
  let env: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, value] = [argv[i], argv[i + 1]];
    const whole = Number(value);
    if (flag === '--strategy' && isIdStrategy(value)) {
      options.strategy = value;
    } else if (flag === '--concurrency' && Number.isInteger(whole) && whole >= 1 && whole <= 256) {
      options.concurrency = whole;
    } else if (flag === '--seconds' && whole >= 1 && whole <= 60) {
      options.seconds = whole;
    } else if (flag === '--users-per-request' && [1, 100, 1000].includes(whole)) {
      options.usersPerRequest = whole;
    } else if (flag === '--together') {
      options.together = true;
      continue;
    } else if (flag === '--env' && value !== undefined && /^[A-Z_][A-Z0-9_]*=/.test(value)) {
      const at = value.indexOf('=');
      env[value.slice(0, at)] = value.slice(at + 1);
    } else if (flag === '--node-args' && value !== undefined) {
      nodeArgs = value.split(' ').filter((arg) => arg !== '');
    } else if (flag === '--rounds' && Number.isInteger(whole) && whole >= 1 && whole <= 9) {
      options.rounds = whole;
    } else if (!flag.startsWith('--')) {
      options.entries.push({ entry: resolve(flag), nodeArgs, env });
      nodeArgs = [];
      env = {};
      continue;
    } else {
      throw new Error(
        'options: --strategy COUNTER|OPTIMISTIC_LOOP|BLOCK, --concurrency 1..256, ' +
          '--users-per-request 1|100|1000, --seconds 1..60, --rounds 1..9, --together, then two or more ' +
          'built entry points, each after its own --node-args "FLAGS" and --env KEY=VALUE if any',
      );
    }
    i += 1;
  }
  if (options.entries.length < 2) throw new Error('give at least two built entry points');
  return options;
}

/** A build as the table names it: its environment, `node` flags and entry point. */
function buildLabel({ entry, nodeArgs, env }: Options['entries'][number]): string {
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  return [...assignments, ...nodeArgs, entry].join(' ');
}

/** `measure` of each of `order`, one after the other. */
async function sequentially<T>(order: number[], measure: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (const i of order) results.push(await measure(i));
  return results;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const plan: ServicePlan = {
    label: options.strategy,
    strategy: options.strategy,
    shape: { strategy: options.strategy, usersPerRequest: options.usersPerRequest },
    blockSize: 100,
    blockSizeMax: 10_000,
    concurrencies: [options.concurrency],
  };
  const database = await startBenchDatabase();
  const runId = Date.now().toString(36);
  const dbNames = options.entries.map((_, i) => `compare_${runId}_${i}`);
  const fleets: ServiceFleet[] = [];
  try {
    for (const [i, { entry, nodeArgs, env }] of options.entries.entries()) {
      fleets.push(
        await startServiceFleet({
          instances: 1,
          mongodbUri: database.uri,
          dbName: dbNames[i],
          blockSize: plan.blockSize,
          blockSizeMax: plan.blockSizeMax,
          nodeArgs,
          entry,
          env,
        }),
      );
    }
    for (const fleet of fleets) await warmUp(fleet, plan, WARM_UP_SECONDS);
    const cells: CellResult[][] = fleets.map(() => []);
    const loadStart = loadavg()[0];
    for (let round = 0; round < options.rounds; round += 1) {
      const order = fleets.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      const measure = (i: number) =>
        measureServiceCell(
          fleets[i],
          plan,
          options.concurrency,
          options.seconds,
          options.together ? undefined : database.pid,
        );
      const measured = options.together
        ? await Promise.all(order.map(measure))
        : await sequentially(order, measure);
      const first = measured[order.indexOf(0)].cpuMsPerUser.service ?? Number.NaN;
      order.forEach((i, k) => {
        const cell = measured[k];
        cells[i].push(cell);
        const cpu = cell.cpuMsPerUser.service ?? Number.NaN;
        const database = options.together
          ? ''
          : `database ${(cell.cpuMsPerUser.database ?? Number.NaN).toFixed(3)} ms/user, `;
        process.stderr.write(
          `compare: round ${round + 1}, build ${i + 1}: ${cpu.toFixed(3)} ms/user ` +
            `(${(cpu / first).toFixed(3)} of build 1's), ${database}` +
            `${cell.usersPerSecond.toFixed(0)} users/s\n`,
        );
      });
    }
    const cpuOf = (c: CellResult) => c.cpuMsPerUser.service ?? Number.NaN;
    const rows = cells.map((measured) => ({
      cpu: median(measured.map(cpuOf)),
      // Paired: each round's ratio to the first build's cell of that round, then their median.
      pairedRatio: median(measured.map((c, round) => cpuOf(c) / cpuOf(cells[0][round]))),
      rate: median(measured.map((c) => c.usersPerSecond)),
      p50: median(measured.map((c) => c.p50Ms)),
      p99: median(measured.map((c) => c.p99Ms)),
      rss: Math.max(...measured.map((c) => c.peakRssMb ?? 0)),
    }));
    const lines = [
      `${options.strategy}@${options.concurrency}, ${options.usersPerRequest} per request, ${options.seconds} s × ${options.rounds} rounds${options.together ? ', builds loaded together' : ''}; ` +
        `1-minute load average ${loadStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end`,
      '',
      `| Build | Service CPU ms/user | ÷ first | Rounds' ÷ first, median | Users/s | ÷ first | p50 ms | p99 ms | Peak RSS MB |`,
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows.map(
        (r, i) =>
          `| ${buildLabel(options.entries[i])} | ${r.cpu.toFixed(3)} | ${(r.cpu / rows[0].cpu).toFixed(2)} | ${r.pairedRatio.toFixed(3)} | ` +
          `${r.rate.toFixed(0)} | ${(r.rate / rows[0].rate).toFixed(2)} | ${r.p50.toFixed(1)} | ` +
          `${r.p99.toFixed(1)} | ${r.rss.toFixed(0)} |`,
      ),
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await Promise.all(fleets.map((fleet) => fleet.stop()));
    const client = new MongoClient(database.uri, { serverSelectionTimeoutMS: 10_000 });
    await Promise.all(
      dbNames.map((name) =>
        client
          .db(name)
          .dropDatabase()
          .catch(() => undefined),
      ),
    ).finally(() => client.close());
    await database.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`compare failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
