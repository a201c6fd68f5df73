/**
 * One client and one private database per conformance file, opened before its tests and
 * dropped after, so files run in parallel on one server (real MongoDB or the stand-in).
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { Db, MongoClient, MongoClientOptions } from 'mongodb';
import { RunningStandin, startStandin } from '../../src';
import { connectTestClient, testBackend, testMongoUri, uniqueDbName } from '../support/db';

export interface ConformanceDb {
  readonly client: MongoClient;
  readonly db: Db;
}

/** The client and database `opened` will hold once beforeAll has run. */
function openedLater(opened: { client?: MongoClient; db?: Db }): ConformanceDb {
  return {
    get client() {
      return opened.client!;
    },
    get db() {
      return opened.db!;
    },
  };
}

export function useConformanceDb(prefix: string, options?: MongoClientOptions): ConformanceDb {
  const opened: { client?: MongoClient; db?: Db } = {};
  beforeAll(async () => {
    opened.client = await connectTestClient(options);
    opened.db = opened.client.db(uniqueDbName(prefix));
  });
  afterAll(async () => {
    await opened.db?.dropDatabase();
    await opened.client?.close();
  });
  return openedLater(opened);
}

/**
 * As useConformanceDb, on a server no other test file uses at the same time, for a file whose
 * commands act on the whole server (killAllSessions, setParameter): on the stand-in, one started
 * for this file; a real mongod runs test files one at a time (jest.config.ts), so it is that one.
 */
export function useConformanceServerOfItsOwn(prefix: string): ConformanceDb {
  const opened: { client?: MongoClient; db?: Db; standin?: RunningStandin } = {};
  beforeAll(async () => {
    if (testBackend() === 'standin') opened.standin = await startStandin({ log: () => undefined });
    opened.client = await new MongoClient(opened.standin?.uri ?? testMongoUri(), {
      runtimeAdapters: { os },
      serverSelectionTimeoutMS: 5_000,
    }).connect();
    opened.db = opened.client.db(uniqueDbName(prefix));
  });
  afterAll(async () => {
    await opened.db?.dropDatabase();
    await opened.client?.close();
    await opened.standin?.stop();
  });
  return openedLater(opened);
}

/**
 * Turns off the failCommand fail point set for `appName`. Scoped: on the stand-in this clears only
 * that client's setting (see the package's README.md); mongod holds one setting, which it clears.
 */
export async function failCommandOff(shared: ConformanceDb, appName: string): Promise<void> {
  await shared.client
    .db('admin')
    .command({ configureFailPoint: 'failCommand', mode: 'off', data: { appName } });
}

export interface ScopedFaults {
  /** the faulty client's appName, for `data.appName` of failCommand */
  readonly appName: string;
  /** a client whose handshake carries `appName` */
  readonly client: MongoClient;
}

/**
 * A second client with its own appName for a describe block, its failCommand fail points
 * cleared (only its own slot, on the stand-in) after each test.
 */
export function useScopedFaults(
  shared: ConformanceDb,
  prefix: string,
  options: MongoClientOptions,
): ScopedFaults {
  const appName = `${prefix}-${randomUUID()}`;
  let faulty: MongoClient | undefined;
  beforeAll(async () => {
    faulty = await connectTestClient({ appName, ...options });
  });
  afterEach(async () => {
    await failCommandOff(shared, appName);
  });
  afterAll(async () => {
    await faulty?.close();
  });
  return {
    appName,
    get client() {
      return faulty!;
    },
  };
}
