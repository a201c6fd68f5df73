/**
 * Public entry of the MongoDB wire-protocol stand-in: a server speaking enough of MongoDB's
 * protocol and semantics for this service and its tests, loud about everything else. It imports
 * nothing from the service. `port: 0` (the default) picks a free port; the server listens on
 * 127.0.0.1 only. Without `dataDir` each started instance has its own, empty data in memory;
 * with it, the data is recovered from that directory and every acknowledged write is on disk
 * there before the reply (state/journal.ts). `limits` bound what clients can make it hold
 * (server.ts); the defaults suit tests and local runs. By default it is a one-member replica set
 * named `rs0` (state/replica-set.ts), so drivers take their production paths (retryable writes,
 * cluster time); `replSet: null` makes it a standalone, which refuses txnNumber as mongod does.
 */
import { LogLine, DEFAULT_LIMITS, ServerLimits, StandinServer } from './server';
import { RecoveryReport } from './state/journal';
import { DEFAULT_REPLICA_SET } from './state/replica-set';

export interface StandinOptions {
  port?: number;
  /** where connection-closing reasons and internal errors go; default stderr */
  log?: LogLine;
  /** keep the data in this directory (created when missing) across restarts */
  dataDir?: string;
  /** journal bytes after which a snapshot is taken (restart replays at most about this much) */
  snapshotAfterBytes?: number;
  limits?: Partial<ServerLimits>;
  /** the replica set's name (default `rs0`); null for a standalone */
  replSet?: string | null;
  /**
   * For tests of code that reads the database's clock: what `$$NOW` reads, in epoch milliseconds
   * (default `Date.now`), so a test can put the server just before a midnight. mongod has no such
   * option; tests that use it start a stand-in of their own.
   */
  clock?: () => number;
}

export interface RunningStandin {
  /** `mongodb://127.0.0.1:<port>/?replicaSet=<name>`, or `mongodb://127.0.0.1:<port>/` standalone */
  uri: string;
  /** the replica set's name; null for a standalone */
  replSet: string | null;
  port: number;
  /** what was recovered from `dataDir` (absent without one) */
  recovery?: RecoveryReport;
  /** open cursors and the documents they hold */
  cursorUsage(): { cursors: number; heldDocuments: number };
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

export async function startStandin(options: StandinOptions = {}): Promise<RunningStandin> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const replSet = options.replSet === undefined ? DEFAULT_REPLICA_SET : options.replSet;
  const server = new StandinServer(
    log,
    { ...DEFAULT_LIMITS, ...options.limits },
    replSet,
    options.clock,
  );
  const recovery =
    options.dataDir === undefined
      ? undefined
      : await server.openDataDirectory(options.dataDir, {
          snapshotAfterBytes: options.snapshotAfterBytes,
        });
  const port = await server.listen(options.port ?? 0, HOST).catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  return {
    uri: `mongodb://${HOST}:${port}/${replSet === null ? '' : `?replicaSet=${encodeURIComponent(replSet)}`}`,
    port,
    replSet,
    recovery,
    cursorUsage: () => server.state.cursors.usage,
    stop: () => server.close(),
  };
}
