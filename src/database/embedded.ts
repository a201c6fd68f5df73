/**
 * The database `npm start` uses when MONGODB_URI is unset, so the service runs out of the box.
 *
 * Order: a real `mongod` through mongodb-memory-server, data kept in `./.data` across restarts,
 * when a binary is already on this machine (MONGOMS_SYSTEM_BINARY or memory-server's cache;
 * nothing is downloaded here, so an offline start never waits on the network); otherwise the
 * project's wire-protocol stand-in, loaded lazily so production code never loads it, with a loud
 * warning that the data lives in memory and this is not MongoDB. Production never gets here.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.js';

export interface EmbeddedDatabase {
  uri: string;
  kind: 'memory-server' | 'standin';
  stop(): Promise<void>;
}

const EMBEDDED_DATA_DIR = path.resolve('.data');

async function locateMongod(logger: Logger): Promise<string | undefined> {
  const { DryMongoBinary } = await import('mongodb-memory-server');
  try {
    return await DryMongoBinary.locateBinary(DryMongoBinary.getEnsuredOptions());
  } catch (err) {
    logger.warn({ err }, 'MONGOMS_SYSTEM_BINARY does not name a usable mongod');
    return undefined;
  }
}

async function startMemoryServer(binary: string): Promise<EmbeddedDatabase> {
  const { MongoMemoryServer } = await import('mongodb-memory-server');
  await mkdir(EMBEDDED_DATA_DIR, { recursive: true });
  const server = await MongoMemoryServer.create({
    binary: { systemBinary: binary },
    instance: { dbPath: EMBEDDED_DATA_DIR, storageEngine: 'wiredTiger' },
  });
  return {
    uri: server.getUri(),
    kind: 'memory-server',
    stop: async () => {
      await server.stop({ doCleanup: false });
    },
  };
}

async function startStandinDatabase(): Promise<EmbeddedDatabase> {
  const { startStandin } = await import('../standin/index.js');
  const standin = await startStandin();
  return { uri: standin.uri, kind: 'standin', stop: () => standin.stop() };
}

export async function startEmbeddedDatabase(logger: Logger): Promise<EmbeddedDatabase> {
  const binary = await locateMongod(logger);
  if (binary !== undefined) {
    const database = await startMemoryServer(binary);
    logger.info(
      { binary, dbPath: EMBEDDED_DATA_DIR },
      'embedded MongoDB (mongodb-memory-server) started',
    );
    return database;
  }
  const database = await startStandinDatabase();
  logger.warn(
    '\n' +
      '  *****************************************************************************\n' +
      '  *  No MONGODB_URI and no mongod binary: running on the built-in STAND-IN.   *\n' +
      '  *  This is NOT MongoDB. Data lives in memory and is LOST when the process   *\n' +
      '  *  stops. Set MONGODB_URI to use a real MongoDB.                            *\n' +
      '  *****************************************************************************',
  );
  return database;
}
