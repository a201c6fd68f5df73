/**
 * What the users tests share: one monitored client per test file, and a fresh database per test
 * holding the real components (`Sequences`, `StrategyStats`, `Users`) over the real driver.
 *
 * Commands are counted from the driver's own command monitoring (`commandStarted`), restricted to
 * the test's database, so a count includes everything the component sent there and nothing else.
 */
import type { CommandStartedEvent, Db, MongoClient, MongoClientOptions } from 'mongodb';
import { Sequences } from '../../src/sequences';
import { StrategyStats } from '../../src/stats';
import { ID_STRATEGIES, type IdStrategy } from '../../src/strategies';
import { Users, type UsersDeps } from '../../src/users';
import { commandsSentTo } from '../support/commands';
import { connectTestClient, uniqueDbName } from '../support/db';
import { sequencesOptions, usersSettings } from '../support/domain-options';

export interface UsersUnderTest {
  db: Db;
  sequences: Sequences;
  stats: StrategyStats<IdStrategy>;
  users: Users;
  /** Another process on the same database: its own allocator, stats and caches. */
  otherProcess(options?: Partial<UsersDeps>): Promise<Users>;
  /** The commands `run` sent to this test's database, by name, in order. */
  commandsDuring(run: () => Promise<unknown>): Promise<string[]>;
  /** The same, as the driver's events (with each command's document). */
  commandsSent(run: () => Promise<unknown>): Promise<CommandStartedEvent[]>;
}

/**
 * One process's domain components over `db`, as the service composes them (`Sequences`,
 * `StrategyStats`, `Users` with `overrides` of its settings); the indexes are not created yet.
 */
export function componentsOn(
  db: Db,
  overrides: Partial<UsersDeps> = {},
): { sequences: Sequences; stats: StrategyStats<IdStrategy>; users: Users } {
  // One bound for every command of the test, as the service gives both one DB_TIMEOUT_MS.
  const sequences = new Sequences(db, {
    ...sequencesOptions,
    maxTimeMS: overrides.maxTimeMS ?? sequencesOptions.maxTimeMS,
  });
  const stats = new StrategyStats(ID_STRATEGIES);
  const users = new Users({ db, sequences, stats, ...usersSettings, ...overrides });
  return { sequences, stats, users };
}

export class UsersTestBed {
  private constructor(readonly client: MongoClient) {}

  /** `options`: e.g. a small `maxPoolSize`, to show what waits for a pooled connection. */
  static async open(options: MongoClientOptions = {}): Promise<UsersTestBed> {
    return new UsersTestBed(await connectTestClient({ monitorCommands: true, ...options }));
  }

  async fresh(options: Partial<UsersDeps> = {}): Promise<UsersUnderTest> {
    const db = this.client.db(uniqueDbName());
    const build = async (overrides: Partial<UsersDeps>) => {
      const components = componentsOn(db, overrides);
      await components.users.ensureIndexes();
      return components;
    };
    const own = await build(options);
    return {
      db,
      ...own,
      otherProcess: async (overrides = {}) => (await build({ ...options, ...overrides })).users,
      commandsDuring: async (run) =>
        (await commandsSentTo(this.client, db, run)).map((event) => event.commandName),
      commandsSent: (run) => commandsSentTo(this.client, db, run),
    };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** `count` distinct names, so inputs are told apart in assertions. */
export function names(count: number, prefix = 'user'): Array<{ name: string }> {
  return Array.from({ length: count }, (_, i) => ({ name: `${prefix} ${i + 1}` }));
}

export function idsOf(users: Array<{ id: string }>): number[] {
  return users.map((user) => Number(user.id));
}

export { storedIds } from '../support/stored-users';

/** 1, 2, ..., n. */
export const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** The ids of the created items of a `createUsers` result, in input order. */
export function createdIds(
  results: Array<{ user: { id: string } } | { error: unknown }>,
): number[] {
  return results.flatMap((result) => ('user' in result ? [Number(result.user.id)] : []));
}
