/**
 * The database `npm start` uses when MONGODB_URI is unset, so the service runs out of the box
 * and keeps its data across restarts. Production never gets here.
 *
 * Order: a real `mongod` through mongodb-memory-server, with its data in `./.data/mongod`, when
 * a binary is on this machine (MONGOMS_SYSTEM_BINARY or memory-server's cache) or its download
 * host answers a short probe (memory-server then downloads it, printing its progress); otherwise,
 * or when that fails, the project's wire-protocol stand-in with its data in `./.data/standin`
 * (journaled: what it acknowledged survives a crash), loaded lazily so production code never
 * loads it. `EMBEDDED_DB=mongod|standin` forces one (a forced mongod that cannot start is an
 * error, not a fallback). Either is a one-member replica set named rs0 (as every production
 * MongoDB is a set: the driver retries writes, gossips cluster time) whose transactions live at
 * most TRANSACTION_LIFETIME_SECONDS (below), and listens on
 * 127.0.0.1:27018 when that port is free, else on a free port; the start-up line names the
 * database with a URI to paste into mongosh.
 */
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from '../logger';

export type EmbeddedKind = 'mongod' | 'standin';

export interface EmbeddedDatabase {
  uri: string;
  kind: EmbeddedKind;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** EMBEDDED_DB: skip the pick */
  force?: EmbeddedKind;
  /** the service's database, for the mongosh URI */
  dbName: string;
}

/** The port the embedded database prefers, beside mongod's default so both can run. */
export const EMBEDDED_PORT = 27018;
/** Both embedded databases are a one-member replica set of this name, as production is a set. */
const REPLICA_SET = 'rs0';
/**
 * mongod's transactionLifetimeLimitSeconds for both embedded databases (mongod's own default is
 * 60). A service instance killed inside a TRANSACTION creation leaves its transaction open,
 * holding the `userid` counter: every other instance's TRANSACTION creation conflicts with it
 * until the server aborts it after this long. A TRANSACTION transaction is a few commands, each
 * bounded by DB_TIMEOUT_MS (default 5 s), and one aborted for its lifetime is simply run again;
 * so 5 s costs an honest transaction nothing, and after a kill -9 creations resume within 5 s
 * (the stand-in aborts at the lifetime; mongod's reaper may add up to half of it).
 */
const TRANSACTION_LIFETIME_SECONDS = 5;
const DATA_ROOT = path.resolve('.data');
const DOWNLOAD_PROBE_MS = 1_500;

/** A `mongod` already on this machine (MONGOMS_SYSTEM_BINARY or memory-server's cache). */
export async function localMongod(
  onUnusable: (err: unknown) => void = () => undefined,
): Promise<string | undefined> {
  const { DryMongoBinary } = await import('mongodb-memory-server');
  try {
    return await DryMongoBinary.locateBinary(DryMongoBinary.getEnsuredOptions());
  } catch (err) {
    onUnusable(err);
    return undefined;
  }
}

/** One HEAD request to memory-server's download mirror: can a download possibly succeed? */
export async function downloadHostAnswers(): Promise<boolean> {
  const mirror = process.env.MONGOMS_DOWNLOAD_MIRROR ?? 'https://fastdl.mongodb.org';
  try {
    await fetch(mirror, { method: 'HEAD', signal: AbortSignal.timeout(DOWNLOAD_PROBE_MS) });
    return true;
  } catch {
    return false;
  }
}

/** EMBEDDED_PORT when nothing listens there, else 0 (any free port). */
async function preferredPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(0));
    probe.listen(EMBEDDED_PORT, '127.0.0.1', () => probe.close(() => resolve(EMBEDDED_PORT)));
  });
}

async function startMongod(binary: string | undefined): Promise<EmbeddedDatabase> {
  const { MongoMemoryReplSet } = await import('mongodb-memory-server');
  const dbPath = path.join(DATA_ROOT, 'mongod');
  await mkdir(dbPath, { recursive: true });
  const set = await MongoMemoryReplSet.create({
    ...(binary ? { binary: { systemBinary: binary } } : {}),
    replSet: { name: REPLICA_SET, count: 1, storageEngine: 'wiredTiger' },
    instanceOpts: [
      {
        dbPath,
        storageEngine: 'wiredTiger',
        port: await preferredPort(),
        args: ['--setParameter', `transactionLifetimeLimitSeconds=${TRANSACTION_LIFETIME_SECONDS}`],
      },
    ],
  });
  return {
    uri: set.getUri(),
    kind: 'mongod',
    stop: async () => {
      await set.stop({ doCleanup: false });
    },
  };
}

async function startStandinDatabase(): Promise<EmbeddedDatabase> {
  const { startStandin } = await import('mongodb-standin');
  const dataDir = path.join(DATA_ROOT, 'standin');
  const replSet = REPLICA_SET;
  const limits = { transactionLifetimeMs: TRANSACTION_LIFETIME_SECONDS * 1000 };
  const standin = await startStandin({
    port: await preferredPort(),
    dataDir,
    replSet,
    limits,
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    return startStandin({ port: 0, dataDir, replSet, limits }); // the preferred port was taken since the probe
  });
  return { uri: standin.uri, kind: 'standin', stop: () => standin.stop() };
}

async function pickMongod(logger: Logger): Promise<EmbeddedDatabase | undefined> {
  const binary = await localMongod((err) =>
    logger.warn({ err }, 'MONGOMS_SYSTEM_BINARY does not name a usable mongod'),
  );
  if (binary === undefined && !(await downloadHostAnswers())) return undefined;
  try {
    return await startMongod(binary);
  } catch (err) {
    logger.warn({ err }, 'mongodb-memory-server could not start a mongod; using the stand-in');
    return undefined;
  }
}

/** The URI naming `dbName` as its database (`mongodb://h:p/` + `?replicaSet=…` kept). */
function withDatabase(uri: string, dbName: string): string {
  const url = new URL(uri);
  url.pathname = `/${dbName}`;
  return url.toString();
}

const STANDIN_WARNING = [
  '  *******************************************************************************',
  '  *  No MONGODB_URI and no mongod to be had: running on the built-in STAND-IN.  *',
  '  *  This is NOT MongoDB: it implements what this service uses and refuses the  *',
  '  *  rest. Set MONGODB_URI (or EMBEDDED_DB=mongod) to use a real MongoDB.       *',
  '  *******************************************************************************',
].join('\n');

export async function startEmbeddedDatabase(
  logger: Logger,
  options: EmbeddedOptions,
): Promise<EmbeddedDatabase> {
  const mongod =
    options.force === 'standin'
      ? undefined
      : options.force === 'mongod'
        ? await startMongod(await localMongod())
        : await pickMongod(logger);
  const database = mongod ?? (await startStandinDatabase());
  const what =
    database.kind === 'mongod'
      ? 'MongoDB (mongod via mongodb-memory-server)'
      : 'the MongoDB stand-in (not MongoDB)';
  logger.info(
    `embedded database: ${what}, data in ${path.join(DATA_ROOT, database.kind)}; mongosh ${withDatabase(database.uri, options.dbName)}`,
  );
  if (database.kind === 'standin') logger.warn(`\n${STANDIN_WARNING}`);
  return database;
}
