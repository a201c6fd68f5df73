/**
 * MongoDB's `failCommand` fail point, set through a separate driver client on the `admin` db.
 *
 * Invariant: every fail point set here is scoped with `data.appName` to exactly one service
 * instance. Fail points are server-wide and other test files run at the same time on the same
 * server; an unscoped one would fail their commands too. There is one `failCommand` setting per
 * server (in mongod and in the stand-in alike): setting one replaces, and clearing ends, whatever
 * another file set, so the files that use fail points must not overlap in time (today only the
 * fault table does).
 *
 * Scoping needs the driver to announce its appName in the connection handshake. Under jest it
 * does not: mongodb 7.9 loads `os` for its handshake metadata with a dynamic `import()`, which
 * jest refuses without --experimental-vm-modules, and the driver then silently sends empty
 * metadata. `faultServer` therefore probes whether scoping works on the shared test database and,
 * when it does not, gives the suite a private stand-in where nothing else can be hit.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { startStandin } from '../../src/standin';
import { connectTestClient, testMongoUri } from '../support/db';

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

const ADMIN_COMMAND_TIMEOUT_MS = 10_000;

/** `appName` null: unscoped, only ever on a private server (see `FaultServer.scoped`). */
export async function setFailPoint(
  client: MongoClient,
  appName: string | null,
  mode: FailPointMode,
  data: FailCommandData,
): Promise<void> {
  await client.db('admin').command(
    {
      configureFailPoint: 'failCommand',
      mode,
      data: appName === null ? data : { ...data, appName },
    },
    { timeoutMS: ADMIN_COMMAND_TIMEOUT_MS },
  );
}

/** Turns the fail point off; returns how many commands it failed (mongod's `count`). */
export async function clearFailPoint(client: MongoClient): Promise<number> {
  const reply = await client
    .db('admin')
    .command(
      { configureFailPoint: 'failCommand', mode: 'off' },
      { timeoutMS: ADMIN_COMMAND_TIMEOUT_MS },
    );
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

/** True when a fail point scoped to one client's appName fails that client's command. */
async function appNameScopingWorks(admin: MongoClient, uri: string): Promise<boolean> {
  const appName = `scope-probe-${randomUUID()}`;
  const probe = await MongoClient.connect(uri, { appName, serverSelectionTimeoutMS: 5_000 });
  try {
    await setFailPoint(admin, appName, { times: 1 }, { failCommands: ['ping'], errorCode: 91 });
    await probe.db('admin').command({ ping: 1 }, { timeoutMS: ADMIN_COMMAND_TIMEOUT_MS });
    return false;
  } catch {
    return true;
  } finally {
    await clearFailPoint(admin);
    await probe.close();
  }
}

export async function faultServer(): Promise<FaultServer> {
  const shared = await connectTestClient();
  if (await appNameScopingWorks(shared, testMongoUri())) {
    return { client: shared, mongodbUri: undefined, scoped: true, stop: () => shared.close() };
  }
  await shared.close();
  const standin = await startStandin();
  const client = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 5_000 });
  console.warn(
    'fault table: appName-scoped fail points do not reach the service under jest (the driver sends no handshake metadata); using a private stand-in',
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
