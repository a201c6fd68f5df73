/**
 * Starts "the database the tests run against", picked once in this order: `MONGODB_URI` (a real
 * MongoDB the caller provides); mongodb-memory-server's one-member replica set when a `mongod` is at hand
 * (MONGOMS_SYSTEM_BINARY or memory-server's cache) or its download host answers within a short
 * probe; otherwise the project's MongoDB stand-in, a one-member replica set too. Either way the
 * driver takes its production paths (retryable writes with txnNumber, cluster time). `TEST_MONGO=uri|memory-server|standin`
 * forces one (and fails loudly if it cannot be had). Offline, the memory-server route costs one
 * short probe and no retries. Used by jest's global setup and by `npm run bench`.
 */
import { downloadHostAnswers, localMongod } from '../../src/database/embedded';
import { startStandin } from 'mongodb-standin';

export type TestDatabaseBackend = 'uri' | 'memory-server' | 'standin';

export interface TestDatabase {
  uri: string;
  backend: TestDatabaseBackend;
  stop(): Promise<void>;
}

const BACKENDS: readonly TestDatabaseBackend[] = ['uri', 'memory-server', 'standin'];

function forcedBackend(): TestDatabaseBackend | undefined {
  const forced = process.env.TEST_MONGO;
  if (!forced) return undefined;
  if (!(BACKENDS as readonly string[]).includes(forced)) {
    throw new Error(`TEST_MONGO must be one of ${BACKENDS.join(', ')}; got '${forced}'`);
  }
  return forced as TestDatabaseBackend;
}

function fromUri(): TestDatabase {
  const uri = process.env.MONGODB_URI;
  if (!uri) throw new Error('TEST_MONGO=uri needs MONGODB_URI');
  return { uri, backend: 'uri', stop: async () => undefined };
}

async function startMemoryServer(binary: string | undefined): Promise<TestDatabase> {
  const { MongoMemoryReplSet } = await import('mongodb-memory-server');
  const set = await MongoMemoryReplSet.create({
    replSet: { count: 1, storageEngine: 'wiredTiger' },
    ...(binary ? { binary: { systemBinary: binary } } : {}),
  });
  return {
    uri: set.getUri(),
    backend: 'memory-server',
    stop: async () => {
      await set.stop();
    },
  };
}

async function startStandinDatabase(): Promise<TestDatabase> {
  const standin = await startStandin();
  return { uri: standin.uri, backend: 'standin', stop: () => standin.stop() };
}

export async function startTestDatabase(): Promise<TestDatabase> {
  const forced = forcedBackend();
  if (forced === 'uri' || (!forced && process.env.MONGODB_URI)) return fromUri();
  if (forced === 'standin') return startStandinDatabase();
  const binary = await localMongod();
  if (forced === 'memory-server') return startMemoryServer(binary);
  if (binary || (await downloadHostAnswers())) {
    try {
      return await startMemoryServer(binary);
    } catch {
      // the one fallback: memory-server could not start or download; the stand-in always can
    }
  }
  return startStandinDatabase();
}

export function describeTestDatabase(database: TestDatabase): string {
  const names: Record<TestDatabaseBackend, string> = {
    uri: 'MongoDB from MONGODB_URI',
    'memory-server': 'mongodb-memory-server (real mongod, one-member replica set)',
    standin: 'the MongoDB wire-protocol stand-in (in-memory one-member replica set, not MongoDB)',
  };
  const uri = database.uri.replace(/\/\/[^@/]*@/, '//***@');
  return `test database: ${names[database.backend]} at ${uri} (TEST_MONGO=${database.backend})`;
}
