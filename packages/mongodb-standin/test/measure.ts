/**
 * Benchmark of the stand-in through the official driver (not a test; run with
 * `npx tsx test/measure.ts [--data-dir DIR] [--writes-only] [--flood]
 * [--alternate ROUNDS --data-dir DIR] [--cpu-prof DIR]`): the stand-in
 * runs as its own process (the CLI, as `npm run standin` starts it) so it and the driver each
 * get a core. With 32 operations in flight: findOneAndUpdate ($inc on one counter, upsert,
 * returnDocument after), single-document inserts and `find().sort({_id: -1}).limit(1)` per
 * second; then the stand-in process's RSS after it stores 100,000 users (unique email index).
 * With `--data-dir` (an empty directory) every figure is with the journal on, and the stand-in
 * is then SIGKILLed and restarted on that directory: the restart time at 100,000 users.
 * `--writes-only` stops after the `$inc` and insert figures (for alternating runs, journal off
 * and on, on a shared machine). `--flood` instead runs the cursor flood: 200,000
 * documents, then finds with batchSize 1 never read, with the process's RSS and a ping every
 * 100 finds, until 2,000 finds or the process dies. Prints one JSON line per figure.
 * `--alternate ROUNDS` runs the `--writes-only` figures ROUNDS times in each mode (after one round
 * not counted, which warms this process), in memory and
 * journaled (a fresh `round-<n>` directory under DIR each time), alternating which goes first,
 * then prints each round's journaled ÷ in-memory ratio and the medians: on a shared machine only
 * ratios within one round say something. Beside each rate ratio, the ratio of the stand-in's CPU
 * per write (in memory ÷ journaled): the rate ratio when the stand-in's CPU is what bounds both,
 * as on a quiet 2-core machine, and much less moved by other work than the rates are. `--cpu-prof DIR` starts the stand-in with node's
 * `--cpu-prof` writing its profile into DIR at a clean stop.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { Long, MongoClient } from 'mongodb';

const CONCURRENCY = 32;
const argv = process.argv.slice(2);
const optionValue = (name: string) =>
  argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined;
const dataDir = optionValue('--data-dir');
const writesOnly = argv.includes('--writes-only');
const rounds = Number(optionValue('--alternate') ?? 0);
const cpuProfileDir = optionValue('--cpu-prof');
const INC_FIGURE = 'findOneAndUpdate $inc upsert returnDocument after';
const INSERT_FIGURE = 'insertOne';

/** CPU seconds, user and system, the process has used, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/** One figure: operations a second, and the stand-in's CPU (all, and system) per operation. */
interface Figure {
  perSecond: number;
  standinCpuMicros: number;
  standinSystemMicros: number;
}

/**
 * Runs `total` operations with CONCURRENCY in flight. Besides the rate the driver saw, reports
 * the CPU time per operation of the stand-in process and of this (driver) process: the rate one
 * core could sustain for each side is 1 / that, whatever else competes for the machine.
 */
async function throughput(
  serverPid: number,
  journal: 'on' | 'off',
  name: string,
  total: number,
  operation: (i: number) => Promise<unknown>,
): Promise<Figure> {
  let next = 0;
  const serverCpuBefore = cpuSeconds(serverPid);
  const driverCpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) await operation(next++);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const serverCpuAfter = cpuSeconds(serverPid);
  const serverUserMicros = ((serverCpuAfter.user - serverCpuBefore.user) * 1e6) / total;
  const serverSystemMicros = ((serverCpuAfter.system - serverCpuBefore.system) * 1e6) / total;
  const driverCpu = process.cpuUsage(driverCpuBefore);
  const driverCpuMicros = (driverCpu.user + driverCpu.system) / total;
  const perSecond = Math.round(total / seconds);
  console.log(
    JSON.stringify({
      figure: name,
      journal,
      operations: total,
      concurrency: CONCURRENCY,
      seconds: +seconds.toFixed(3),
      perSecond,
      standinCpuMicrosPerOp: Math.round(serverUserMicros + serverSystemMicros),
      standinSystemCpuMicrosPerOp: Math.round(serverSystemMicros),
      driverCpuMicrosPerOp: Math.round(driverCpuMicros),
      loadAverage1m: os.loadavg()[0],
    }),
  );
  return {
    perSecond,
    standinCpuMicros: Math.round(serverUserMicros + serverSystemMicros),
    standinSystemMicros: Math.round(serverSystemMicros),
  };
}

/** Starts the CLI on a free port and resolves with its URI and ready line once it prints it. */
function startStandinProcess(
  directory: string | undefined,
): Promise<{ child: ChildProcess; uri: string; line: string }> {
  const options = directory === undefined ? [] : ['--data-dir', directory];
  const profile =
    cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir];
  const child = spawn(
    process.execPath,
    [...profile, '--import', 'tsx', `${__dirname}/../src/cli.ts`, '--port', '0', ...options],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`stand-in exited early with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const line = chunk.toString().trim();
      const uri = /mongodb:\/\/127\.0\.0\.1:\d+\//.exec(line)?.[0];
      if (uri) resolve({ child, uri, line });
    });
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

async function restartAfterKill(child: ChildProcess, documents: number): Promise<void> {
  child.kill('SIGKILL');
  await exited(child);
  const started = performance.now();
  const restarted = await startStandinProcess(dataDir);
  const readyMs = Math.round(performance.now() - started);
  const client = await MongoClient.connect(restarted.uri);
  const stored = await client.db('measure').collection('users100k').countDocuments();
  console.log(
    JSON.stringify({
      figure: 'restart after SIGKILL (process start to ready line, recovery included)',
      users: stored,
      expectedUsers: documents,
      readyMs,
      readyLine: restarted.line,
    }),
  );
  await client.close();
  restarted.child.kill('SIGTERM');
}

/** The client: finds with batchSize 1 whose results are never read. */
async function flood(): Promise<void> {
  const { child, uri } = await startStandinProcess(undefined);
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 2_000 });
  const docs = client.db('measure').collection<{ _id: number; name: string }>('flood');
  for (let start = 0; start < 200_000; start += 1_000) {
    await docs.insertMany(
      Array.from({ length: 1_000 }, (_, i) => ({ _id: start + i, name: `user ${start + i}` })),
    );
  }
  let finds = 0;
  while (finds < 2_000) {
    try {
      for (let i = 0; i < 100; i++, finds++) {
        await client.db('measure').command({ find: 'flood', batchSize: 1 });
      }
      const started = performance.now();
      await client.db('measure').command({ ping: 1 });
      const pingMs = Math.round(performance.now() - started);
      console.log(
        JSON.stringify({ figure: 'cursor flood', finds, rssMB: rssMegabytes(child.pid!), pingMs }),
      );
    } catch (error) {
      console.log(
        JSON.stringify({
          figure: 'cursor flood',
          finds,
          died: child.exitCode !== null || child.signalCode !== null,
          error: (error as Error).message,
        }),
      );
      break;
    }
  }
  await client.close(true);
  child.kill('SIGTERM');
}

function rssMegabytes(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return Math.round(kb / 1024);
}

interface WriteFigures {
  inc: Figure;
  insert: Figure;
}

/**
 * The `$inc` and insert figures on a fresh stand-in (journaled in `directory`, if given); resolves
 * with the stand-in still running, for the remaining figures.
 */
async function writeFigures(directory: string | undefined): Promise<
  WriteFigures & {
    child: ChildProcess;
    client: MongoClient;
  }
> {
  const journal = directory === undefined ? 'off' : 'on';
  const { child, uri } = await startStandinProcess(directory);
  const client = await MongoClient.connect(uri, { maxPoolSize: CONCURRENCY });
  const db = client.db('measure');
  const counters = db.collection<{ _id: string; seq: Long }>('counters');
  const users = db.collection<{ _id: number; name: string }>('users');
  await throughput(child.pid!, journal, 'warm-up', 2_000, () =>
    counters.findOneAndUpdate({ _id: 'warm' }, { $inc: { seq: Long.ONE } }, { upsert: true }),
  );
  const inc = await throughput(child.pid!, journal, INC_FIGURE, 30_000, () =>
    counters.findOneAndUpdate(
      { _id: 'c' },
      { $inc: { seq: Long.ONE } },
      { upsert: true, returnDocument: 'after' },
    ),
  );
  const insert = await throughput(child.pid!, journal, INSERT_FIGURE, 30_000, (i) =>
    users.insertOne({ _id: i, name: `user ${i}` }),
  );
  return { inc, insert, child, client };
}

/** Stops a stand-in started by writeFigures cleanly (SIGTERM; a CPU profile is written then). */
async function stop(child: ChildProcess, client: MongoClient): Promise<void> {
  await client.close();
  child.kill('SIGTERM');
  await exited(child);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * ROUNDS rounds of in-memory and journaled write figures, alternating which runs first, after a
 * round that is printed and not counted: this process (the driver) is not warm in its first round,
 * so that round's in-memory phase ran 10 to 25% slower than the later ones and its ratio read high.
 */
async function alternate(root: string): Promise<void> {
  const ratios: Array<Record<'inc' | 'insert' | 'incCpu' | 'insertCpu', number>> = [];
  for (let round = 0; round <= rounds; round++) {
    const directory = path.join(root, `round-${round}`);
    rmSync(directory, { recursive: true, force: true });
    mkdirSync(directory, { recursive: true });
    const figures: Partial<Record<'on' | 'off', WriteFigures>> = {};
    for (const mode of round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const { inc, insert, child, client } = await writeFigures(
        mode === 'on' ? directory : undefined,
      );
      await stop(child, client);
      figures[mode] = { inc, insert };
    }
    rmSync(directory, { recursive: true, force: true });
    const { on, off } = figures as Record<'on' | 'off', WriteFigures>;
    const ratio = {
      inc: +(on.inc.perSecond / off.inc.perSecond).toFixed(3),
      insert: +(on.insert.perSecond / off.insert.perSecond).toFixed(3),
      // the rate ratio if the stand-in's CPU were all that bounds it: less sensitive to load
      incCpu: +(off.inc.standinCpuMicros / on.inc.standinCpuMicros).toFixed(3),
      insertCpu: +(off.insert.standinCpuMicros / on.insert.standinCpuMicros).toFixed(3),
    };
    if (round > 0) ratios.push(ratio);
    console.log(
      JSON.stringify({
        figure:
          round > 0 ? 'journaled ÷ in-memory' : 'journaled ÷ in-memory, warm-up (not counted)',
        round,
        ...ratio,
        off,
        on,
        loadAverage1m: os.loadavg()[0],
      }),
    );
  }
  console.log(
    JSON.stringify({
      figure: 'journaled ÷ in-memory, medians',
      rounds,
      inc: median(ratios.map((r) => r.inc)),
      insert: median(ratios.map((r) => r.insert)),
      incEach: ratios.map((r) => r.inc),
      insertEach: ratios.map((r) => r.insert),
      incCpu: median(ratios.map((r) => r.incCpu)),
      insertCpu: median(ratios.map((r) => r.insertCpu)),
    }),
  );
}

async function main(): Promise<void> {
  if (argv.includes('--flood')) return flood();
  if (rounds > 0) {
    if (dataDir === undefined) throw new Error('--alternate needs --data-dir DIR');
    return alternate(dataDir);
  }
  const journal = dataDir === undefined ? 'off' : 'on';
  const { child, client } = await writeFigures(dataDir);
  if (writesOnly) return stop(child, client);
  const db = client.db('measure');
  const users = db.collection<{ _id: number; name: string }>('users');
  await throughput(child.pid!, journal, 'find sort _id -1 limit 1 (30k docs)', 30_000, () =>
    users.find({}).sort({ _id: -1 }).limit(1).toArray(),
  );
  const bulk = db.collection<{ _id: number; name: string; email: string; createdAt: Date }>(
    'users100k',
  );
  await bulk.createIndex({ email: 1 }, { unique: true });
  const before = rssMegabytes(child.pid!);
  for (let start = 0; start < 100_000; start += 1_000) {
    await bulk.insertMany(
      Array.from({ length: 1_000 }, (_, i) => ({
        _id: start + i,
        name: `user ${start + i}`,
        email: `user${start + i}@example.com`,
        createdAt: new Date(),
      })),
    );
  }
  const after = rssMegabytes(child.pid!);
  console.log(
    JSON.stringify({
      figure: 'stand-in process RSS before and after 100,000 more users',
      journal,
      documents: await bulk.countDocuments(),
      rssBeforeMB: before,
      rssAfterMB: after,
    }),
  );
  await client.close();
  if (dataDir === undefined) child.kill('SIGTERM');
  else await restartAfterKill(child, 100_000);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
