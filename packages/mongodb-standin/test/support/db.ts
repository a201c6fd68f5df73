/**
 * The database the conformance tests talk to: whatever the test run names in TEST_MONGODB_URI (the
 * repository's jest global setup starts a stand-in through the package entry, or passes a real
 * MongoDB's URI), so the same tests run unchanged against mongod. Each test file works in its own
 * database (uniqueDbName), so files run in parallel on one server. Clients get short timeouts so a
 * broken server fails a test quickly instead of hanging it. The service's tests use these helpers
 * too (its test/support/db.ts), as the package can import nothing of theirs.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { MongoClient, MongoClientOptions } from 'mongodb';

export function testMongoUri(): string {
  const uri = process.env.TEST_MONGODB_URI;
  if (!uri) throw new Error('TEST_MONGODB_URI is unset: the test run names the server to test');
  return uri;
}

/** Which server the test run picked (TEST_MONGODB_BACKEND); a URI when unset. */
export function testBackend(): 'uri' | 'memory-server' | 'standin' {
  return (process.env.TEST_MONGODB_BACKEND ?? 'uri') as 'uri' | 'memory-server' | 'standin';
}

/** A database name no other test file (or run) uses: `<prefix>_<pid>_<random>`, within MongoDB's 63-byte limit. */
export function uniqueDbName(prefix = 'test'): string {
  const safe = prefix.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  return `${safe}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/**
 * A connected client to the server under test. `runtimeAdapters.os` is passed because under jest
 * the driver's own dynamic `import('os')` fails (no vm modules) and it then sends empty handshake
 * metadata, so the server would never see `appName` and fail points could not be scoped.
 */
export async function connectTestClient(options: MongoClientOptions = {}): Promise<MongoClient> {
  return testClient(options).connect();
}

/** The client connectTestClient connects, not yet connected (to listen to its first events). */
export function testClient(options: MongoClientOptions = {}): MongoClient {
  return new MongoClient(testMongoUri(), {
    runtimeAdapters: { os },
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    socketTimeoutMS: 30_000,
    ...options,
  });
}
