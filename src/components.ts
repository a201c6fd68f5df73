/**
 * The composition root: the service's components over one database, wired as ARCHITECTURE.md
 * describes: one Sequences engine, one StrategyStats (labelled by the strategies of
 * src/strategies), one Budgets and one Users (with one id source per strategy) per service process, and the SequenceCatalog over the engine, through which callers reach sequences
 * (ownership, and `userid` reserved to Users). Several processes (or service instances in one test)
 * on one database each build their own.
 */
import type { Db } from 'mongodb';
import { Budgets } from './budgets/index';
import type { Config } from './config';
import { writeConcernOf } from './database/index';
import { SequenceCatalog, Sequences } from './sequences/index';
import { RequestStats, StrategyStats } from './stats/index';
import { ID_STRATEGIES, type IdStrategy, type StrategySettings } from './strategies/index';
import { Users } from './users/index';

export type ComponentsConfig = Pick<Config, 'WRITE_CONCERN' | 'DB_TIMEOUT_MS' | 'BUDGETS'>;

/** The service's components, one set per service process. */
export interface ServiceComponents {
  users: Users;
  sequences: SequenceCatalog;
  stats: StrategyStats<IdStrategy>;
  /** GraphQL requests' durations and errors, on the same registry as `stats`. */
  requests: RequestStats;
  /** What each caller may do over time, shared with every instance on the database. */
  budgets: Budgets;
}

/** `strategySettings`: each strategy's own variables (src/strategies), read beside `config`. */
export function createComponents(
  db: Db,
  config: ComponentsConfig,
  strategySettings: StrategySettings,
): ServiceComponents {
  const writeConcern = writeConcernOf(config);
  const stats = new StrategyStats(ID_STRATEGIES);
  const counters = new Sequences(db, {
    writeConcern,
    maxTimeMS: config.DB_TIMEOUT_MS,
    onCounterWrite: (key) => stats.recordCounterWrite(key.name),
  });
  const users = new Users({
    db,
    sequences: counters,
    stats,
    strategySettings,
    writeConcern,
    maxTimeMS: config.DB_TIMEOUT_MS,
  });
  const sequences = new SequenceCatalog(counters, [users.idSequence]);
  const budgets = new Budgets(db, { table: config.BUDGETS, maxTimeMS: config.DB_TIMEOUT_MS });
  return { users, sequences, stats, requests: new RequestStats(stats.registry), budgets };
}
