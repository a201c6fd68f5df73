/**
 * A private stand-in for tests that make the database misbehave: `failCommand` fail points are
 * server-wide, and on a private server no other test file's commands can hit them (under jest the
 * driver sends no appName, so scoping them on the shared database does not work; see
 * test/reliability/fail-points.ts).
 */
import { MongoClient } from 'mongodb';
import { startStandin } from '../../src/standin';

export type FaultMode = { times: number } | 'alwaysOn';
/** `find` either blocks for `blockTimeMS` or fails with the server error `errorCode`. */
export type FindFault = { blockTimeMS: number } | { errorCode: number };

export interface FaultyDatabase {
  uri: string;
  /** Runs `work` while `find` commands meet `fault`; the fail point is off afterwards. */
  whileFind<T>(fault: FindFault, mode: FaultMode, work: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

export async function startFaultyDatabase(): Promise<FaultyDatabase> {
  const standin = await startStandin({ log: () => {} });
  const admin = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 5_000 });
  const failPoint = (mode: FaultMode | 'off', fault?: FindFault) =>
    admin.db('admin').command({
      configureFailPoint: 'failCommand',
      mode,
      data: {
        failCommands: ['find'],
        ...(fault && 'blockTimeMS' in fault ? { blockConnection: true, ...fault } : fault),
      },
    });
  return {
    uri: standin.uri,
    async whileFind(fault, mode, work) {
      await failPoint(mode, fault);
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
