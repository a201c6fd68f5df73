/**
 * MongoDB's `failCommand` fail point, set through a separate driver client on the `admin` db.
 *
 * Invariant: on the shared test database every fail point set here is scoped with `data.appName`
 * to exactly one service instance, and cleared by that appName: other test files run at the same
 * time on the same server. The stand-in keeps one slot per appName; real `mongod` has a single
 * `failCommand` setting per server, so there the files that use fail points must not overlap in
 * time.
 *
 * Scoping needs the service's driver to announce its appName in the connection handshake. Under
 * jest mongodb 7.9 does not unless given `runtimeAdapters.os`: it loads `os` for the handshake
 * metadata with a dynamic `import()`, which jest refuses without --experimental-vm-modules, and
 * then silently sends empty metadata. `faultServer` therefore probes whether a fail point scoped
 * to a test service's appName reaches that service and, when it does not, gives the suite a
 * private stand-in (unscoped fail points, nothing else there to hit).
 */
import { MongoClient } from 'mongodb';
import { startStandin } from 'mongodb-standin';
import { connectTestClient } from '../support/db';
import { startTestService } from '../support/service';

/** `{ times: n }` fails the next n matching commands; `alwaysOn` until cleared. */
export type FailPointMode = { times: number } | 'alwaysOn';

/** The documented `failCommand` data fields, except `appName` which `setFailPoint` adds. */
export interface FailCommandData {
  failCommands: string[];
  errorCode?: number;
  errorLabels?: string[];
  closeConnection?: boolean;
  blockConnection?: boolean;
  blockTimeMS?: number;
  writeConcernError?: { code: number; codeName: string; errmsg: string };
}

/** Bounds every command of the suite's own clients (mongodb 7.9 ignores `timeoutMS`). */
const SOCKET_TIMEOUT_MS = 30_000;

/** `appName` null: unscoped, only ever on a private server (see `FaultServer.scoped`). */
export async function setFailPoint(
  client: MongoClient,
  appName: string | null,
  mode: FailPointMode,
  data: FailCommandData,
): Promise<void> {
  await client.db('admin').command({
    configureFailPoint: 'failCommand',
    mode,
    data: appName === null ? data : { ...data, appName },
  });
}

/** Turns the fail point off; returns how many commands it failed (mongod's `count`). */
export async function clearFailPoint(client: MongoClient, appName: string | null): Promise<number> {
  const reply = await client.db('admin').command({
    configureFailPoint: 'failCommand',
    mode: 'off',
    ...(appName === null ? {} : { data: { appName } }),
  });
  return Number(reply.count);
}

/** Where fault cases run: a client for setting fail points, and the URI for the services. */
export interface FaultServer {
  client: MongoClient;
  /** Undefined: the shared test database, where fail points are scoped by appName. */
  mongodbUri: string | undefined;
  /** Whether fail points must be scoped (shared database) or must not be (private stand-in). */
  scoped: boolean;
  stop(): Promise<void>;
}

/** True when a fail point scoped to a test service's appName fails that service's command. */
async function serviceAppNameIsSeen(admin: MongoClient): Promise<boolean> {
  const service = await startTestService();
  const { appName } = service.client.options;
  try {
    if (appName === undefined) return false;
    await setFailPoint(admin, appName, { times: 1 }, { failCommands: ['ping'], errorCode: 91 });
    try {
      await service.client.db('admin').command({ ping: 1 });
      return false;
    } catch {
      return true;
    } finally {
      await clearFailPoint(admin, appName);
    }
  } finally {
    await service.stop();
  }
}

export async function faultServer(): Promise<FaultServer> {
  const shared = await connectTestClient();
  if (await serviceAppNameIsSeen(shared)) {
    return { client: shared, mongodbUri: undefined, scoped: true, stop: () => shared.close() };
  }
  await shared.close();
  const standin = await startStandin();
  const client = await MongoClient.connect(standin.uri, {
    serverSelectionTimeoutMS: 5_000,
    socketTimeoutMS: SOCKET_TIMEOUT_MS,
  });
  console.warn(
    'fault table: a fail point scoped to the test service does not reach it (its driver sends no handshake metadata under jest); using a private stand-in',
  );
  return {
    client,
    mongodbUri: standin.uri,
    scoped: false,
    stop: async () => {
      await client.close();
      await standin.stop();
    },
  };
}
