/**
 * Benchmark of the stand-in through the official driver (not a test; run with
 * `npx tsx test/standin/measure.ts [--data-dir DIR] [--writes-only] [--flood]`): the stand-in
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
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Long, MongoClient } from 'mongodb';

const CONCURRENCY = 32;
const argv = process.argv.slice(2);
const dataDir = argv.includes('--data-dir') ? argv[argv.indexOf('--data-dir') + 1] : undefined;
const journal = dataDir === undefined ? 'off' : 'on';
const writesOnly = argv.includes('--writes-only');

/** CPU seconds (user + system) the process has used, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Runs `total` operations with CONCURRENCY in flight. Besides the rate the driver saw, reports
 * the CPU time per operation of the stand-in process and of this (driver) process: the rate one
 * core could sustain for each side is 1 / that, whatever else competes for the machine.
 */
async function throughput(
  serverPid: number,
  name: string,
  total: number,
  operation: (i: number) => Promise<unknown>,
): Promise<void> {
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
  const serverCpuMicros = ((cpuSeconds(serverPid) - serverCpuBefore) * 1e6) / total;
  const driverCpu = process.cpuUsage(driverCpuBefore);
  const driverCpuMicros = (driverCpu.user + driverCpu.system) / total;
  console.log(
    JSON.stringify({
      figure: name,
      journal,
      operations: total,
      concurrency: CONCURRENCY,
      seconds: +seconds.toFixed(3),
      perSecond: Math.round(total / seconds),
      standinCpuMicrosPerOp: Math.round(serverCpuMicros),
      driverCpuMicrosPerOp: Math.round(driverCpuMicros),
      loadAverage1m: os.loadavg()[0],
    }),
  );
}

/** Starts the CLI on a free port and resolves with its URI and ready line once it prints it. */
function startStandinProcess(): Promise<{ child: ChildProcess; uri: string; line: string }> {
  const options = dataDir === undefined ? [] : ['--data-dir', dataDir];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/standin/cli.ts', '--port', '0', ...options],
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
  const restarted = await startStandinProcess();
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
  const { child, uri } = await startStandinProcess();
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

async function main(): Promise<void> {
  if (argv.includes('--flood')) return flood();
  const { child, uri } = await startStandinProcess();
  const client = await MongoClient.connect(uri, { maxPoolSize: CONCURRENCY });
  const db = client.db('measure');
  const counters = db.collection<{ _id: string; seq: Long }>('counters');
  const users = db.collection<{ _id: number; name: string }>('users');
  await throughput(child.pid!, 'warm-up', 2_000, () =>
    counters.findOneAndUpdate({ _id: 'warm' }, { $inc: { seq: Long.ONE } }, { upsert: true }),
  );
  await throughput(child.pid!, 'findOneAndUpdate $inc upsert returnDocument after', 30_000, () =>
    counters.findOneAndUpdate(
      { _id: 'c' },
      { $inc: { seq: Long.ONE } },
      { upsert: true, returnDocument: 'after' },
    ),
  );
  await throughput(child.pid!, 'insertOne', 30_000, (i) =>
    users.insertOne({ _id: i, name: `user ${i}` }),
  );
  if (writesOnly) {
    await client.close();
    child.kill('SIGTERM');
    return;
  }
  await throughput(child.pid!, 'find sort _id -1 limit 1 (30k docs)', 30_000, () =>
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
