/**
 * The two limits every strategy is measured against, run straight on the driver (no HTTP, no
 * GraphQL, no service): a plain `insertOne` whose `_id` is an ObjectId, and the tutorial's own
 * `getNextSequence` (findOneAndUpdate `$inc` with upsert) followed by `insertOne`.
 *
 * Contract: `runDriverBaseline` runs `concurrency` workers in a closed loop until the deadline and
 * reports users created per second of wall time, per-user latency percentiles, and the database
 * commands per user counted by command monitoring on this module's own client (so only these
 * workers' commands are counted). Every database call is bounded by the same per-phase client
 * limits the service uses (server selection, connection wait, socket): the driver's `timeoutMS`
 * is deprecated and ignored in mongodb 7.
 * The tutorial loop retries the upsert race's duplicate key (the tutorial's "behaviour" section)
 * and counts those retries; any other error stops the cell and is rethrown.
 */
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { startCpuMeter } from './process-usage';
import { cpuPerUser, latencySummary, type CellResult } from './report';

export type DriverBaseline = 'INSERT_OBJECTID' | 'TUTORIAL_GET_NEXT_SEQUENCE';

export const DRIVER_BASELINES: Record<DriverBaseline, string> = {
  INSERT_OBJECTID: 'driver: insertOne (ObjectId)',
  TUTORIAL_GET_NEXT_SEQUENCE: 'driver: tutorial getNextSequence+insert',
};

/** A client whose every command is counted, so a cell can report commands per user. */
export interface CountingClient {
  client: MongoClient;
  commandsSent(): number;
  close(): Promise<void>;
}

const DUPLICATE_KEY = 11000;
const OPERATION_TIMEOUT_MS = 10_000;

export async function connectCountingClient(uri: string): Promise<CountingClient> {
  const client = new MongoClient(uri, {
    monitorCommands: true,
    maxPoolSize: 100,
    serverSelectionTimeoutMS: OPERATION_TIMEOUT_MS,
    connectTimeoutMS: OPERATION_TIMEOUT_MS,
    waitQueueTimeoutMS: OPERATION_TIMEOUT_MS,
    socketTimeoutMS: OPERATION_TIMEOUT_MS,
    appName: 'sequential-ids-bench',
  });
  let commands = 0;
  client.on('commandStarted', () => {
    commands += 1;
  });
  await client.connect();
  return { client, commandsSent: () => commands, close: () => client.close() };
}

/** The tutorial's `getNextSequence(name)`, as the tutorial writes it (upsert variant). */
async function getNextSequence(db: Db, name: string): Promise<number> {
  const counter = await db
    .collection<{ _id: string; seq: number }>('counters')
    .findOneAndUpdate(
      { _id: name },
      { $inc: { seq: 1 } },
      { upsert: true, returnDocument: 'after', maxTimeMS: OPERATION_TIMEOUT_MS },
    );
  if (counter === null) throw new Error(`getNextSequence(${name}) returned no document`);
  return Number(counter.seq);
}

const isDuplicateKey = (error: unknown): boolean =>
  error instanceof MongoServerError && error.code === DUPLICATE_KEY;

/** Creates one user; returns how many duplicate-key retries it needed. */
function userCreator(baseline: DriverBaseline, db: Db): () => Promise<number> {
  if (baseline === 'INSERT_OBJECTID') {
    const users = db.collection<{ name: string; createdAt: Date }>('users');
    return async () => {
      await users.insertOne(
        { name: 'bench user', createdAt: new Date() },
        { maxTimeMS: OPERATION_TIMEOUT_MS },
      );
      return 0;
    };
  }
  const users = db.collection<{ _id: number; name: string; createdAt: Date }>('users');
  return async () => {
    for (let retries = 0; ; retries += 1) {
      try {
        const id = await getNextSequence(db, 'userid');
        await users.insertOne(
          { _id: id, name: 'bench user', createdAt: new Date() },
          { maxTimeMS: OPERATION_TIMEOUT_MS },
        );
        return retries;
      } catch (error) {
        if (!isDuplicateKey(error) || retries >= 10) throw error;
      }
    }
  };
}

export async function runDriverBaseline(options: {
  counting: CountingClient;
  dbName: string;
  baseline: DriverBaseline;
  concurrency: number;
  durationMs: number;
  /** The database's process, when the bench runs it, to report its CPU time per user. */
  databasePid?: number;
}): Promise<CellResult> {
  const { counting, baseline, concurrency, durationMs } = options;
  const createUser = userCreator(baseline, counting.client.db(options.dbName));
  const latenciesMs: number[] = [];
  let retries = 0;
  const commandsBefore = counting.commandsSent();
  const cpuSpent = await startCpuMeter([], options.databasePid);
  const started = performance.now();
  const deadline = started + durationMs;

  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      retries += await createUser();
      latenciesMs.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));

  const elapsedS = (performance.now() - started) / 1000;
  const cpu = await cpuSpent();
  const users = latenciesMs.length;
  const latency = latencySummary(latenciesMs);
  return {
    path: 'driver',
    label: DRIVER_BASELINES[baseline],
    strategy: baseline,
    concurrency,
    instances: 0,
    durationS: elapsedS,
    users,
    usersPerSecond: users / elapsedS,
    p50Ms: latency.p50Ms,
    p99Ms: latency.p99Ms,
    commandsPerUser: users === 0 ? null : (counting.commandsSent() - commandsBefore) / users,
    duplicateKeyRetriesPerUser: users === 0 ? null : retries / users,
    transactionRetriesPerUser: null,
    writeConflictsPerUser: null,
    failedRequests: 0,
    retryableRefusals: 0,
    cpuMsPerUser: cpuPerUser(cpu, users),
    peakRssMb: null,
  };
}
