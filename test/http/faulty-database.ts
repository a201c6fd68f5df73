/**
 * A private stand-in for tests that make the database misbehave: `failCommand` fail points are
 * server-wide, and on a private server no other test file's commands can hit them. A service
 * started on it by `serviceOnFaultyDatabase` has its fail points scoped to its own client's appName,
 * so they fail the commands of the request's work and never the budgets' charges, which go through
 * a client of their own (src/components.ts).
 */
import { MongoClient } from 'mongodb';
import { startStandin } from 'mongodb-standin';
import { startTestService, type TestService } from '../support/service';

export type FaultMode = { times: number } | 'alwaysOn';
/** A command either blocks for `blockTimeMS` or fails with the server error `errorCode`. */
export type FindFault = { blockTimeMS: number } | { errorCode: number };

export interface FaultyDatabase {
  uri: string;
  /** Runs `work` while `find` commands meet `fault`; the fail point is off afterwards. */
  whileFind<T>(fault: FindFault, mode: FaultMode, work: () => Promise<T>): Promise<T>;
  /** The same for any commands, e.g. `findAndModify` (a counter's `$inc`). */
  whileFailing<T>(
    commands: string[],
    fault: FindFault,
    mode: FaultMode,
    work: () => Promise<T>,
  ): Promise<T>;
  /** From now on, fail only the commands of clients that announce `appName`. */
  scopeTo(appName: string): void;
  stop(): Promise<void>;
}

export async function startFaultyDatabase(): Promise<FaultyDatabase> {
  const standin = await startStandin({ log: () => {} });
  const admin = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 5_000 });
  let scope: { appName: string } | Record<string, never> = {};
  const failPoint = (mode: FaultMode | 'off', commands: string[] = [], fault?: FindFault) =>
    admin.db('admin').command({
      configureFailPoint: 'failCommand',
      mode,
      data: {
        failCommands: commands,
        ...scope,
        ...(fault && 'blockTimeMS' in fault ? { blockConnection: true, ...fault } : fault),
      },
    });
  const whileFailing: FaultyDatabase['whileFailing'] = async (commands, fault, mode, work) => {
    await failPoint(mode, commands, fault);
    try {
      return await work();
    } finally {
      await failPoint('off');
    }
  };
  return {
    uri: standin.uri,
    whileFind: (fault, mode, work) => whileFailing(['find'], fault, mode, work),
    whileFailing,
    scopeTo(appName) {
      scope = { appName };
    },
    async stop() {
      await admin.close();
      await standin.stop();
    },
  };
}

export interface ServiceOnFaultyDatabase {
  readonly database: FaultyDatabase;
  readonly service: TestService;
}

/** The appName `service`'s client announces: what a faulty database's fail points are scoped to. */
export function appNameOf(service: TestService): string {
  const { appName } = service.client.options;
  if (appName === undefined) throw new Error('the test service has no appName to scope to');
  return appName;
}

/**
 * A test service (with `env`) over a faulty database of its own, for one test file: started in a
 * `beforeAll`, stopped (service, then database) in an `afterAll`; read its fields in tests.
 */
export function serviceOnFaultyDatabase(env: Record<string, string>): ServiceOnFaultyDatabase {
  let started: ServiceOnFaultyDatabase | undefined;
  beforeAll(async () => {
    const database = await startFaultyDatabase();
    const service = await startTestService({ mongodbUri: database.uri, env });
    database.scopeTo(appNameOf(service));
    started = { database, service };
  });
  afterAll(async () => {
    await started?.service.stop();
    await started?.database.stop();
  });
  const get = () => {
    if (started === undefined) throw new Error('Read the faulty database in a test, not before');
    return started;
  };
  return {
    get database() {
      return get().database;
    },
    get service() {
      return get().service;
    },
  };
}
