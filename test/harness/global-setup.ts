/**
 * jest globalSetup: picks the test database once per run (see database.ts), prints one line
 * naming it, and exports it to every worker through TEST_MONGODB_URI / TEST_MONGODB_BACKEND.
 * The database (a stand-in, when picked) lives in this jest parent process until teardown.
 */
import './standin-build';
import { describeTestDatabase, startTestDatabase, TestDatabase } from './database';

export const RUNNING_DATABASE = Symbol.for('sequential-ids.test-database');

export default async function globalSetup(): Promise<void> {
  const database = await startTestDatabase();
  (globalThis as Record<symbol, TestDatabase>)[RUNNING_DATABASE] = database;
  process.env.TEST_MONGODB_URI = database.uri;
  process.env.TEST_MONGODB_BACKEND = database.backend;
  process.stdout.write(`\n${describeTestDatabase(database)}\n`);
}
