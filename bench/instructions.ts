/**
 * `npx tsx bench/instructions.ts --port P --database-uri URI [--requests N] [--warm-up W]
 * [--concurrency C] [--rounds R] [--node-args FLAGS] A [--node-args FLAGS] B ...`: the
 * instructions each build's service process executes per user created, counted by valgrind's
 * callgrind over exactly N `createUser` requests (COUNTER, C in flight, autocannon's `amount`).
 *
 * Why: on a shared machine a build's CPU time per user moves by ±10% from one minute to the next
 * with the other work's load (`bench:compare`); the instructions it executes for a fixed amount of
 * work hardly move with load (the load changes how long an instruction takes, not how many there
 * are), so a lever of a few percent shows in one pair of rounds. This machine's CPU has no
 * hardware counters for `perf stat`, so callgrind counts them, at about 50× the time: keep N in
 * the thousands. They are not the deciding figure (the full bench's CPU time is: callgrind runs a
 * process's threads one at a time and its caches not at all); they say whether a lever cut work.
 *
 * Contract: each build runs as one service process (`startServiceFleet`: the bench's flags and
 * environment) under `valgrind --tool=callgrind`, on ports P, P + 1, ... of the caller's range,
 * each on a database of its own at URI (dropped at the end), and is warmed with W requests; then
 * the rounds alternate the builds' order. A round zeroes the process's counts, sends N requests
 * and dumps them (`callgrind_control`; the dumps stay in `.instructions/` of this checkout); its
 * users are counted from the process's own `sequential_ids_users_created_total`, so a failed request is not
 * counted as a user, and failures are reported. Bounded: N ≤ 100,000, ≤ 9 rounds, each control
 * call ≤ 60 s, each start ≤ 10 minutes.
 */
import autocannon from 'autocannon';
import { MongoClient } from 'mongodb';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { mutationBody } from './http-load';
import { median } from './report';
import { metricValue, startServiceFleet, type ServiceFleet } from './service-processes';

/** What to measure: the built entry points, each with the `node` flags given just before it. */
interface Options {
  port: number;
  databaseUri: string;
  requests: number;
  warmUp: number;
  concurrency: number;
  rounds: number;
  builds: { entry: string; nodeArgs: string[] }[];
}

const CONTROL_TIMEOUT_MS = 60_000;
/** Under callgrind 64 requests in flight take seconds each. */
const REQUEST_TIMEOUT_S = 300;
const START_TIMEOUT_MS = 600_000;
const OUTPUT_DIR = join(__dirname, '..', '.instructions');

/** A whole number option within its bounds, or its default when not given. */
function bounded(text: string | undefined, name: string, min: number, max: number, unset: number) {
  if (text === undefined) return unset;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`--${name} takes a whole number from ${min} to ${max}, not ${text}`);
  }
  return value;
}

function parseOptions(args: string[]): Options {
  const { values, tokens } = parseArgs({
    args,
    allowPositionals: true,
    tokens: true,
    options: {
      port: { type: 'string' },
      'database-uri': { type: 'string' },
      requests: { type: 'string' },
      'warm-up': { type: 'string' },
      concurrency: { type: 'string' },
      rounds: { type: 'string' },
      'node-args': { type: 'string', multiple: true },
    },
  });
  // The order matters for builds only: `--node-args` applies to the entry point after it.
  const builds: Options['builds'] = [];
  let nodeArgs: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'option' && token.name === 'node-args') {
      nodeArgs = (token.value ?? '').split(' ').filter((arg) => arg !== '');
    } else if (token.kind === 'positional') {
      builds.push({ entry: resolve(token.value), nodeArgs });
      nodeArgs = [];
    }
  }
  if (values.port === undefined || values['database-uri'] === undefined || builds.length === 0) {
    throw new Error('name --port, --database-uri and at least one built entry point');
  }
  return {
    port: bounded(values.port, 'port', 1, 65_000, 0),
    databaseUri: values['database-uri'],
    requests: bounded(values.requests, 'requests', 1, 100_000, 2_000),
    warmUp: bounded(values['warm-up'], 'warm-up', 0, 100_000, 4_000),
    concurrency: bounded(values.concurrency, 'concurrency', 1, 256, 64),
    rounds: bounded(values.rounds, 'rounds', 1, 9, 3),
    builds,
  };
}

/** Zeroes a callgrind process's counts; the returned function reads what it ran since. */
async function countInstructions(pid: number, outputDir: string): Promise<() => Promise<number>> {
  await control(['--zero', String(pid)]);
  return async () => {
    const before = new Set(readdirSync(outputDir));
    await control(['--dump', String(pid)]);
    const dump = readdirSync(outputDir).find(
      (name) => !before.has(name) && name.startsWith(`callgrind.${pid}.`),
    );
    if (dump === undefined) throw new Error(`callgrind wrote no dump for ${pid}`);
    const text = readFileSync(join(outputDir, dump), 'utf8');
    const summary = /^(?:summary|totals): (\d+)/m.exec(text);
    if (!summary) throw new Error(`no summary in ${dump}`);
    return Number(summary[1]);
  };
}

async function control(args: string[]): Promise<void> {
  await new Promise<void>((done, fail) => {
    const child = spawn('callgrind_control', args, { stdio: 'ignore' });
    const ceiling = setTimeout(() => child.kill('SIGKILL'), CONTROL_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(ceiling);
      if (code === 0) done();
      else fail(new Error(`callgrind_control ${args.join(' ')} exited ${code}`));
    });
  });
}

async function load(fleet: ServiceFleet, requests: number, concurrency: number) {
  const result = await autocannon({
    url: `${fleet.processes[0].url}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...fleet.headers },
    body: mutationBody({ strategy: 'COUNTER', usersPerRequest: 1 }),
    connections: concurrency,
    amount: requests,
    timeout: REQUEST_TIMEOUT_S,
    verifyBody: (body) => !String(body).includes('"errors"'),
  });
  return result.errors + result.non2xx + result.mismatches;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const stamp = Date.now().toString(36);
  const fleets: ServiceFleet[] = [];
  const client = new MongoClient(options.databaseUri);
  mkdirSync(OUTPUT_DIR, { recursive: true });
  try {
    const started = await Promise.allSettled(
      options.builds.map(({ entry, nodeArgs }, i) =>
        startServiceFleet({
          instances: 1,
          mongodbUri: options.databaseUri,
          dbName: `instructions_${stamp}_${i}`,
          blockSize: 100,
          blockSizeMax: 10_000,
          // V8 on one thread: no helper thread spinning while valgrind runs another, and the
          // compilers' and collector's work counted once, where it happens.
          nodeArgs: ['--single-threaded', ...nodeArgs],
          entry,
          port: options.port + i,
          launcher: {
            command: [
              'valgrind',
              '--tool=callgrind',
              `--callgrind-out-file=${join(OUTPUT_DIR, 'callgrind.%p')}`,
            ],
            readyTimeoutMs: START_TIMEOUT_MS,
          },
        }),
      ),
    );
    for (const s of started) if (s.status === 'fulfilled') fleets.push(s.value);
    const failure = started.find((s) => s.status === 'rejected');
    if (failure) throw failure.reason;
    if (options.warmUp > 0) {
      await Promise.all(fleets.map((fleet) => load(fleet, options.warmUp, options.concurrency)));
    }
    // The counts do not depend on the load, so every build runs its round at once.
    const perUser: number[][] = fleets.map(() => []);
    for (let round = 0; round < options.rounds; round += 1) {
      const counted = await Promise.all(
        fleets.map(async (fleet) => {
          const created = async () =>
            metricValue(await fleet.metrics(), 'sequential_ids_users_created_total', 'COUNTER');
          const before = await created();
          const stop = await countInstructions(fleet.processes[0].pid, OUTPUT_DIR);
          const failed = await load(fleet, options.requests, options.concurrency);
          const instructions = await stop();
          return { instructions, failed, users: (await created()) - before };
        }),
      );
      for (const [i, { instructions, failed, users }] of counted.entries()) {
        perUser[i].push(instructions / users);
        process.stdout.write(
          `round ${round + 1} ${options.builds[i].entry}: ${users} users, ${failed} failed, ` +
            `${Math.round(instructions / users)} instructions per user ` +
            `(load ${loadavg()[0].toFixed(1)})\n`,
        );
      }
    }
    const first = median(perUser[0]);
    for (const [i, { entry, nodeArgs }] of options.builds.entries()) {
      const own = median(perUser[i]);
      process.stdout.write(
        `${entry} ${nodeArgs.join(' ')}: median ${Math.round(own)} instructions per user ` +
          `(${(own / first).toFixed(3)}× the first)\n`,
      );
    }
  } finally {
    await Promise.all(fleets.map((fleet) => fleet.stop()));
    await client.connect().then(
      async () => {
        for (let i = 0; i < options.builds.length; i += 1) {
          await client.db(`instructions_${stamp}_${i}`).dropDatabase();
        }
      },
      () => undefined,
    );
    await client.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
