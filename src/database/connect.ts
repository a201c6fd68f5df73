/**
 * Connecting the service to MongoDB.
 *
 * Invariants: every operation through the returned client is bounded in time: server selection
 * gives up after about two seconds (an unreachable database is SERVICE_UNAVAILABLE within a few
 * seconds, not a hang), waiting for a pooled connection and waiting on a socket for an answer are
 * each bounded by DB_TIMEOUT_MS, and so is waiting for the write concern. The driver's own
 * `timeoutMS` is not used: in mongodb 7 it is deprecated and ignored ("has no effect"), so these
 * older, per-phase limits are what actually bound a call.
 * The write concern (`majority` by default) is set on the client so no acknowledged `$inc` can be
 * rolled back by a failover and its value issued again.
 */
import { MongoClient, type MongoClientOptions, type WriteConcernSettings } from 'mongodb';
import type { Config } from '../config';

/** How long the driver looks for a usable server before an operation fails. */
const SERVER_SELECTION_TIMEOUT_MS = 2_000;

/** The appName the service's client announces (what currentOp, server logs and fail points see). */
export const SERVICE_APP_NAME = 'sequential-ids';
/** The appName of the budgets' client of their own (src/components.ts says why). */
export const BUDGETS_APP_NAME = 'sequential-ids-budgets';

export type DatabaseConfig = Pick<Config, 'DB_TIMEOUT_MS' | 'WRITE_CONCERN'>;

/** `w` from WRITE_CONCERN; waiting for it is bounded like every other database wait. */
export function writeConcernOf(config: DatabaseConfig): WriteConcernSettings {
  return { w: config.WRITE_CONCERN, wtimeoutMS: config.DB_TIMEOUT_MS };
}

export function clientOptions(
  config: DatabaseConfig,
  appName = SERVICE_APP_NAME,
): MongoClientOptions {
  return {
    appName,
    serverSelectionTimeoutMS: Math.min(SERVER_SELECTION_TIMEOUT_MS, config.DB_TIMEOUT_MS),
    connectTimeoutMS: Math.min(SERVER_SELECTION_TIMEOUT_MS, config.DB_TIMEOUT_MS),
    waitQueueTimeoutMS: config.DB_TIMEOUT_MS,
    socketTimeoutMS: config.DB_TIMEOUT_MS,
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

/**
 * True when the database answers a ping within `withinMs`. The wait is bounded here, not by the
 * driver, so a probe answers in time even when a connection stalls (the ping itself then ends at
 * the socket timeout, unobserved).
 */
export async function pingDatabase(client: MongoClient, withinMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), withinMs);
  });
  const ping = client
    .db('admin')
    .command({ ping: 1 })
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([ping, late]);
  } finally {
    clearTimeout(timer);
  }
}
