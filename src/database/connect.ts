/**
 * Connecting the service to MongoDB.
 *
 * Invariants: every operation through the returned client is bounded by `timeoutMS`
 * (DB_TIMEOUT_MS), and server selection gives up after about two seconds, so an unreachable
 * database surfaces as an error (SERVICE_UNAVAILABLE) within a few seconds instead of a hang.
 * The write concern (`majority` by default) is set on the client so no acknowledged `$inc` can be
 * rolled back by a failover and its value issued again.
 */
import { MongoClient, type MongoClientOptions, type WriteConcernSettings } from 'mongodb';
import type { Config } from '../config.js';

/** How long the driver looks for a usable server before an operation fails. */
export const SERVER_SELECTION_TIMEOUT_MS = 2_000;

export type DatabaseConfig = Pick<Config, 'DB_TIMEOUT_MS' | 'WRITE_CONCERN'>;

export function writeConcernOf(config: Pick<Config, 'WRITE_CONCERN'>): WriteConcernSettings {
  return { w: config.WRITE_CONCERN };
}

export function clientOptions(
  config: DatabaseConfig,
  appName = 'sequential-ids',
): MongoClientOptions {
  return {
    appName,
    timeoutMS: config.DB_TIMEOUT_MS,
    serverSelectionTimeoutMS: Math.min(SERVER_SELECTION_TIMEOUT_MS, config.DB_TIMEOUT_MS),
    connectTimeoutMS: Math.min(SERVER_SELECTION_TIMEOUT_MS, config.DB_TIMEOUT_MS),
    writeConcern: writeConcernOf(config),
  };
}

/**
 * A connected client. Connecting fails within the server-selection timeout when nothing answers;
 * after that the driver reconnects by itself, so a database that returns is used without a restart.
 */
export async function connectDatabase(
  uri: string,
  config: DatabaseConfig,
  options: Partial<MongoClientOptions> = {},
): Promise<MongoClient> {
  const client = new MongoClient(uri, { ...clientOptions(config), ...options });
  await client.connect();
  return client;
}

/** True when the database answers a ping within `timeoutMS`. */
export async function pingDatabase(client: MongoClient, timeoutMS: number): Promise<boolean> {
  try {
    await client.db('admin').command({ ping: 1 }, { timeoutMS });
    return true;
  } catch {
    return false;
  }
}
