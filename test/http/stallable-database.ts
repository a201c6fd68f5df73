/**
 * A private stand-in for tests that stall the database: `failCommand` fail points are server-wide,
 * and on a private server no other test file's commands can hit them (under jest the driver sends
 * no appName, so scoping them on the shared database does not work; see
 * test/reliability/fail-points.ts).
 */
import { MongoClient } from 'mongodb';
import { startStandin } from '../../src/standin';

export type StallMode = { times: number } | 'alwaysOn';

export interface StallableDatabase {
  uri: string;
  /** Runs `work` while `find` commands block for `blockTimeMS`; the fail point is off after. */
  whileFindStalls<T>(blockTimeMS: number, mode: StallMode, work: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

export async function startStallableDatabase(): Promise<StallableDatabase> {
  const standin = await startStandin({ log: () => {} });
  const admin = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 5_000 });
  const failPoint = (mode: StallMode | 'off', blockTimeMS = 0) =>
    admin.db('admin').command({
      configureFailPoint: 'failCommand',
      mode,
      data: { failCommands: ['find'], blockConnection: true, blockTimeMS },
    });
  return {
    uri: standin.uri,
    async whileFindStalls(blockTimeMS, mode, work) {
      await failPoint(mode, blockTimeMS);
      try {
        return await work();
      } finally {
        await failPoint('off');
      }
    },
    async stop() {
      await admin.close();
      await standin.stop();
    },
  };
}
