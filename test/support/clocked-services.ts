/**
 * Two service instances over one database of a stand-in whose clock the test sets: for the
 * database-clock tests (periods), where mongod offers no such setting. The services' own clocks
 * stay the test process's.
 */
import { startStandin, type RunningStandin } from 'mongodb-standin';
import { startTestService, type TestService } from './service';

export interface ClockedServices {
  standin: RunningStandin;
  first: TestService;
  second: TestService;
  stop(): Promise<void>;
}

/** A stand-in answering `$$NOW` from `clock` (ms since the epoch), and two services on it. */
export async function startClockedServices(clock: () => number): Promise<ClockedServices> {
  const standin = await startStandin({ log: () => undefined, clock });
  const first = await startTestService({ mongodbUri: standin.uri });
  const second = await startTestService({ mongodbUri: standin.uri, dbName: first.dbName });
  return {
    standin,
    first,
    second,
    async stop() {
      await Promise.all([first.stop(), second.stop()]);
      await standin.stop();
    },
  };
}
