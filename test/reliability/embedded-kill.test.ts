/**
 * A crash inside a TRANSACTION creation on the embedded database of `npm start`: src/main.ts run
 * as a process in a folder of its own without MONGODB_URI, on the stand-in (EMBEDDED_DB=standin, so
 * nothing waits on a download), whose transactions live at most 5 s (src/database/embedded.ts).
 *
 * Each case first holds a TRANSACTION creation inside its transaction: a fail point blocks its
 * insert after its `$inc` of the `userid` counter, and the test waits until a transaction of its
 * own meets a WriteConflict on that counter. Meanwhile clients keep creations in flight. Then:
 * - the service is killed with SIGKILL, and its embedded database with it (they are one process),
 *   and started again in the same folder (the stand-in replays its journal);
 * - or a second instance, on the first one's embedded database, is killed with SIGKILL: its
 *   transaction stays open on the database, holding the counter, until its lifetime ends; the
 *   first instance serves on, and the second is started again.
 * The bound is one only a stall breaks (60 s of ID_CONTENTION with mongod's default lifetime), not
 * a figure of speed: the first TRANSACTION success within RESUME_BOUND_MS of the restart's ready
 * line (and, for the instance that lived on, of the kill); the measured times are logged. Nothing
 * lost or issued twice: every acknowledged user is stored with its id and key, no id twice, and
 * the stored ids are exactly 1..N with the counter at N (the killed transaction's `$inc` left no
 * hole).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import {
  MAIN_PROCESS_TIMEOUT_MS,
  startMainProcess,
  type MainProcess,
} from '../support/main-process';
import { ADMIN_HEADERS, TEST_ADMIN_TOKEN } from '../support/service';
import { storedIds } from '../support/stored-users';
import { SERVICE_APP_NAME } from '../../src/database';
import { CREATE_USER, postGraphQL, type GraphQLResultLike } from './client';
import { clearFailPoint, setFailPoint } from './fail-points';
import { Ledger, readUserIdCounter } from './ledger';

/** After a kill, TRANSACTION creations succeed again within this long (see the header). */
const RESUME_BOUND_MS = 10_000;
/** MONGODB_DB's default: the database `npm start` uses. */
const DB_NAME = 'sequential_ids';
/** Past the transaction's 5 s lifetime: the held insert never runs before the kill. */
const INSERT_BLOCK_MS = 10_000;
/** WriteConflict: another transaction holds the document. */
const WRITE_CONFLICT = 112;
const CLIENTS = 4;
/** Sends of one creation before its client gives up on it (then a problem of the test). */
const MAX_ATTEMPTS = 60;
const REQUEST_TIMEOUT_MS = 30_000;
/** Codes after which a creation is sent again with its key: no outcome yet, or an unknown one. */
const RETRYABLE = new Set(['ID_CONTENTION', 'SERVICE_UNAVAILABLE', 'TRANSPORT']);

/** A folder of its own for each case, as a new user's checkout; removed after the file. */
const folders: string[] = [];

async function newFolder(): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'embedded-kill-'));
  folders.push(folder);
  return folder;
}

afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A running service process: its URL, and the embedded database's URI when it runs one. */
interface Instance {
  main: MainProcess;
  url: string;
  startedAt: number;
  readyAt: number;
  /** The start-up line's mongosh URI (the embedded database), when this process runs it. */
  databaseUri?: string;
}

async function startInstance(folder: string, env: Record<string, string> = {}): Promise<Instance> {
  const startedAt = performance.now();
  const main = startMainProcess(
    { NODE_ENV: 'test', EMBEDDED_DB: 'standin', ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env },
    { cwd: folder, timeoutMs: 10 * MAIN_PROCESS_TIMEOUT_MS },
  );
  const url = await main.ready;
  const readyAt = performance.now();
  const databaseUri = /mongosh (mongodb:\/\/\S+?)(?=["\s]|$)/.exec(main.output())?.[1];
  return { main, url, startedAt, readyAt, databaseUri };
}

async function killed(instance: Instance): Promise<void> {
  instance.main.child.kill('SIGKILL');
  await instance.main.exited;
}

async function stopped(instance: Instance): Promise<number | null> {
  instance.main.child.kill('SIGTERM');
  return instance.main.exited;
}

/** After a failure: the process is killed if it still runs (nothing is sent to one that exited). */
function cleanedUp(...instances: Instance[]): void {
  for (const { main } of instances) {
    if (main.child.exitCode === null && main.child.signalCode === null) main.child.kill('SIGKILL');
  }
}

function adminClient(uri: string): Promise<MongoClient> {
  return MongoClient.connect(uri, {
    appName: 'embedded-kill-test',
    serverSelectionTimeoutMS: 5_000,
    socketTimeoutMS: REQUEST_TIMEOUT_MS,
  });
}

/**
 * True when another transaction holds the `userid` counter: a transaction of the test's own writes
 * it (a field the service rewrites on every `$inc`) and is always rolled back.
 */
async function counterHeld(client: MongoClient): Promise<boolean> {
  const session = client.startSession();
  try {
    session.startTransaction();
    await client
      .db(DB_NAME)
      .collection<{ _id: string }>('counters')
      .updateOne({ _id: 'userid' }, { $set: { updatedAt: new Date() } }, { session });
    return false;
  } catch (err) {
    if (err instanceof MongoServerError && err.code === WRITE_CONFLICT) return true;
    throw err;
  } finally {
    if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
    await session.endSession().catch(() => undefined);
  }
}

/**
 * Sends one TRANSACTION creation to `url` and waits (bounded) until it holds the counter inside its
 * transaction, its insert blocked by a fail point; its answer is left to the kill. No other
 * creation may be in flight: the fail point blocks the next insert of any instance.
 */
async function holdTransaction(admin: MongoClient, url: string): Promise<void> {
  await setFailPoint(
    admin,
    SERVICE_APP_NAME,
    { times: 1 },
    { failCommands: ['insert'], blockConnection: true, blockTimeMS: INSERT_BLOCK_MS },
  );
  void postGraphQL(
    url,
    CREATE_USER,
    { input: { name: 'held', idempotencyKey: 'held-in-its-transaction' }, strategy: 'TRANSACTION' },
    { headers: ADMIN_HEADERS, timeoutMs: REQUEST_TIMEOUT_MS },
  ).catch(() => undefined);
  const deadline = performance.now() + REQUEST_TIMEOUT_MS;
  while (!(await counterHeld(admin))) {
    if (performance.now() > deadline) throw new Error('no transaction came to hold the counter');
    await sleep(20);
  }
}

/**
 * Clients creating TRANSACTION users one after another, each with its own idempotency key, sent
 * again with it after a retryable answer or none (at most MAX_ATTEMPTS times), until `stop`. They
 * send to the URL they are pointed at and wait while it is null. Every acknowledgement goes to the
 * ledger, and its time to `acknowledgedAt`.
 */
class Creations {
  readonly acknowledgedAt: number[] = [];
  readonly problems: string[] = [];
  private inFlight = 0;
  private stopping = false;
  private next = 0;
  private readonly running: Promise<void>[];

  constructor(
    private url: string | null,
    private readonly tag: string,
    clients: number,
    private readonly ledger: Ledger,
  ) {
    this.running = Array.from({ length: clients }, () => this.client());
  }

  pointAt(url: string | null): void {
    this.url = url;
  }

  /** Points the clients nowhere and waits until none of their requests is in flight. */
  async pause(): Promise<void> {
    this.url = null;
    await this.until(() => this.inFlight === 0, 'the requests in flight to end');
  }

  /** Waits until at least `count` requests are in flight. */
  async inFlightAtLeast(count: number): Promise<void> {
    await this.until(() => this.inFlight >= count, `${count} requests in flight`);
  }

  /** Waits until `count` users are acknowledged at or after `at` (performance.now()). */
  async acknowledged(count: number, at = 0): Promise<void> {
    await this.until(
      () => this.acknowledgedAt.filter((time) => time >= at).length >= count,
      `${count} acknowledgements`,
    );
  }

  /** The first acknowledgement at or after `at`; fails when there is none. */
  firstAfter(at: number): number {
    const first = this.acknowledgedAt.find((time) => time >= at);
    if (first === undefined) throw new Error('nothing was acknowledged after it');
    return first;
  }

  /** No new creation is started; those under way go on until answered. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.running);
  }

  private async until(done: () => boolean, what: string): Promise<void> {
    const deadline = performance.now() + 6 * REQUEST_TIMEOUT_MS;
    while (!done()) {
      if (performance.now() > deadline) throw new Error(`waited in vain for ${what}`);
      await sleep(10);
    }
  }

  private async client(): Promise<void> {
    while (!this.stopping) {
      const n = (this.next += 1);
      const input = { name: `${this.tag} ${n}`, idempotencyKey: `${this.tag}-${n}` };
      let answered = false;
      for (let attempt = 1; attempt <= MAX_ATTEMPTS && !answered;) {
        const url = this.url;
        if (url === null) {
          if (this.stopping) break;
          await sleep(20);
          continue;
        }
        attempt += 1;
        this.inFlight += 1;
        const { user, code } = await send(url, input).finally(() => (this.inFlight -= 1));
        if (user !== null) {
          this.ledger.recordOutcomes([input], [{ user, replayed: false, code: null }]);
          this.acknowledgedAt.push(performance.now());
          answered = true;
        } else if (!RETRYABLE.has(code)) {
          this.problems.push(`${input.idempotencyKey} answered ${code}`);
          answered = true;
        } else {
          await sleep(Math.min(250, 10 * attempt));
        }
      }
      if (!answered) this.problems.push(`${input.idempotencyKey}: no answer after retries`);
    }
  }
}

/** One TRANSACTION `createUser`: the user, or the code it got (TRANSPORT: no answer). */
async function send(
  url: string,
  input: { name: string; idempotencyKey: string },
): Promise<{ user: { id: string; name: string } | null; code: string }> {
  const http = await postGraphQL(
    url,
    CREATE_USER,
    { input, strategy: 'TRANSACTION' },
    { headers: ADMIN_HEADERS, timeoutMs: REQUEST_TIMEOUT_MS },
  ).catch(() => null);
  if (http === null) return { user: null, code: 'TRANSPORT' };
  const body = http.body as GraphQLResultLike;
  const payload = body.data?.createUser as
    { user: { id: string; name: string } | null; error: { code: string } | null } | undefined;
  if (payload?.user) return { user: payload.user, code: '' };
  return {
    user: null,
    code: payload?.error?.code ?? body.errors?.[0]?.extensions?.code ?? `HTTP_${http.status}`,
  };
}

/** Every broken promise of the stored users: the ledger's, holes in 1..N, the counter not at N. */
async function storedProblems(db: Db, ledger: Ledger): Promise<string[]> {
  const problems = await ledger.problems(db);
  const ids = await storedIds(db);
  const highest = ids.at(-1) ?? 0;
  if (ids.length !== highest) problems.push(`${highest - ids.length} holes below ${highest}`);
  const counter = await readUserIdCounter(db);
  if (counter !== highest) problems.push(`userid counter at ${counter}, largest id ${highest}`);
  return problems;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

test(
  'kill -9 of the service and its embedded database mid-TRANSACTION: creations resume within the bound of the restart, nothing lost or issued twice',
  async () => {
    const folder = await newFolder();
    const ledger = new Ledger();
    let instance = await startInstance(folder);
    const creations = new Creations(instance.url, 'whole', CLIENTS, ledger);
    try {
      await creations.acknowledged(8);
      await creations.pause();
      const admin = await adminClient(instance.databaseUri!);
      try {
        await holdTransaction(admin, instance.url);
      } finally {
        await admin.close(true).catch(() => undefined);
      }
      // More creations, queued behind the held one in the process: in flight at the kill.
      creations.pointAt(instance.url);
      await creations.inFlightAtLeast(1);
      creations.pointAt(null);
      await killed(instance);

      instance = await startInstance(folder);
      creations.pointAt(instance.url);
      await creations.acknowledged(8, instance.readyAt);
      const resumedMs = creations.firstAfter(instance.readyAt) - instance.readyAt;
      console.log(
        `service and embedded database killed mid-TRANSACTION: first TRANSACTION success ${seconds(resumedMs)} after the restart was ready (${seconds(instance.readyAt - instance.startedAt)} to start)`,
      );
      expect(resumedMs).toBeLessThan(RESUME_BOUND_MS);
      await creations.stop();
      expect(creations.problems).toEqual([]);

      const reader = await adminClient(instance.databaseUri!);
      try {
        expect(await storedProblems(reader.db(DB_NAME), ledger)).toEqual([]);
      } finally {
        await reader.close();
      }
      expect(await stopped(instance)).toBe(0);
    } finally {
      await creations.stop();
      cleanedUp(instance);
    }
  },
  10 * MAIN_PROCESS_TIMEOUT_MS,
);

test(
  'kill -9 of a second instance mid-TRANSACTION on the embedded database: the first and the restarted second resume within the bound, nothing lost or issued twice',
  async () => {
    const folder = await newFolder();
    const ledger = new Ledger();
    const first = await startInstance(folder);
    const onEmbedded = { MONGODB_URI: first.databaseUri! };
    let second = await startInstance(folder, onEmbedded);
    const admin = await adminClient(first.databaseUri!);
    const onFirst = new Creations(first.url, 'first', CLIENTS / 2, ledger);
    const onSecond = new Creations(second.url, 'second', CLIENTS / 2, ledger);
    try {
      await Promise.all([onFirst.acknowledged(4), onSecond.acknowledged(4)]);
      await Promise.all([onFirst.pause(), onSecond.pause()]);
      await holdTransaction(admin, second.url);
      onSecond.pointAt(second.url);
      await onSecond.inFlightAtLeast(1);
      onSecond.pointAt(null);
      const killedAt = performance.now();
      await killed(second);
      // The killed process's transaction lives on in the database, holding the counter.
      expect(await counterHeld(admin)).toBe(true);
      expect(await clearFailPoint(admin, SERVICE_APP_NAME)).toBe(1);
      onFirst.pointAt(first.url);

      second = await startInstance(folder, onEmbedded);
      onSecond.pointAt(second.url);
      await Promise.all([
        onFirst.acknowledged(4, killedAt),
        onSecond.acknowledged(4, second.readyAt),
      ]);
      const firstResumedMs = onFirst.firstAfter(killedAt) - killedAt;
      const secondResumedMs = onSecond.firstAfter(second.readyAt) - second.readyAt;
      console.log(
        `second instance killed mid-TRANSACTION on the embedded database: the first's first TRANSACTION success ${seconds(firstResumedMs)} after the kill; the restarted second's ${seconds(secondResumedMs)} after it was ready (${seconds(second.readyAt - killedAt)} after the kill)`,
      );
      expect(firstResumedMs).toBeLessThan(RESUME_BOUND_MS);
      expect(secondResumedMs).toBeLessThan(RESUME_BOUND_MS);
      await Promise.all([onFirst.stop(), onSecond.stop()]);
      expect([...onFirst.problems, ...onSecond.problems]).toEqual([]);
      expect(await storedProblems(admin.db(DB_NAME), ledger)).toEqual([]);
      await admin.close();
      expect(await stopped(second)).toBe(0);
      expect(await stopped(first)).toBe(0);
    } finally {
      await Promise.all([onFirst.stop(), onSecond.stop()]);
      await admin.close();
      cleanedUp(second, first);
    }
  },
  10 * MAIN_PROCESS_TIMEOUT_MS,
);
