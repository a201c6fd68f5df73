/**
 * MongoDB's `failCommand` fail point, set through a separate driver client on the `admin` db.
 *
 * Invariant: every fail point set here is scoped with `data.appName` to exactly one service
 * instance. Fail points are server-wide and other test files run at the same time on the same
 * server; an unscoped one would fail their commands too. There is one `failCommand` setting per
 * server (in mongod and in the stand-in alike): setting one replaces, and clearing ends, whatever
 * another file set, so the files that use fail points must not overlap in time (today only the
 * fault table does).
 */
import type { MongoClient } from 'mongodb';

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

export async function setFailPoint(
  client: MongoClient,
  appName: string,
  mode: FailPointMode,
  data: FailCommandData,
): Promise<void> {
  await client
    .db('admin')
    .command(
      { configureFailPoint: 'failCommand', mode, data: { ...data, appName } },
      { timeoutMS: ADMIN_COMMAND_TIMEOUT_MS },
    );
}

export async function clearFailPoint(client: MongoClient, appName: string): Promise<void> {
  await client
    .db('admin')
    .command(
      { configureFailPoint: 'failCommand', mode: 'off', data: { appName } },
      { timeoutMS: ADMIN_COMMAND_TIMEOUT_MS },
    );
}
