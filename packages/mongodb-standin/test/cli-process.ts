/**
 * The stand-in as its own process, as `npm run standin -- --data-dir DIR` starts it, for the
 * tests that SIGKILL it: `startCli` resolves with the URI once the ready line is printed (and
 * rejects with its output if it exits first); `killed` SIGKILLs it and waits for the exit;
 * `killUnderLoadThenRead` is the whole kill -9 of the durability tests.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Db, MongoClient } from 'mongodb';

export interface CliStandin {
  child: ChildProcess;
  uri: string;
  port: number;
  /** the ready line */
  line: string;
}

export function startCli(dataDir: string, port = 0): Promise<CliStandin> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      `${__dirname}/../src/cli.ts`,
      '--port',
      String(port),
      '--data-dir',
      dataDir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`stand-in exited with ${code}: ${output}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /mongodb:\/\/127\.0\.0\.1:(\d+)\/\S*(?=\n)/.exec(output);
      if (match)
        resolve({ child, uri: match[0], port: Number(match[1]), line: output.split('\n')[0] });
    });
  });
}

export function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export interface KillUnderLoad {
  /** The running stand-in, on `dataDir`, and the client the workers use. */
  first: CliStandin;
  dataDir: string;
  client: MongoClient;
  /** `clients` workers writing through `client`, each until `stopped()` or its first failure. */
  clients: number;
  worker: (stopped: () => boolean) => Promise<void>;
  /** How many writes were acknowledged so far; the kill waits for `atLeast` (30 s at most). */
  acknowledged: () => number;
  atLeast: number;
  /** Reads database `durable` of the restarted stand-in, through a client of its own. */
  read: (db: Db) => Promise<void>;
}

/**
 * Once `atLeast` writes are acknowledged, SIGKILLs `first` under its workers, lets them end,
 * starts the stand-in again on the same directory and hands its `durable` database to `read`.
 */
export async function killUnderLoadThenRead(run: KillUnderLoad): Promise<void> {
  let stopping = false;
  const workers = Array.from({ length: run.clients }, () => run.worker(() => stopping));
  const deadline = Date.now() + 30_000;
  while (run.acknowledged() < run.atLeast && Date.now() < deadline) await sleep(20);
  expect(run.acknowledged()).toBeGreaterThanOrEqual(run.atLeast);
  await killed(run.first.child);
  stopping = true;
  await Promise.all(workers);
  await run.client.close(true);

  const second = await startCli(run.dataDir);
  const reader = await MongoClient.connect(second.uri, { serverSelectionTimeoutMS: 2_000 });
  try {
    await run.read(reader.db('durable'));
  } finally {
    await reader.close();
    await killed(second.child);
  }
}
