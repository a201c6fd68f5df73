/**
 * The id strategies: one folder each (its properties, its settings and its id source, see
 * ./strategy.ts) and one entry each in `STRATEGIES` below. Every other module, test and bench
 * iterates `ID_STRATEGIES` or a subset named here, so a new strategy is created, configured,
 * measured and tested everywhere once it is listed (CONTRIBUTING.md, "Adding a strategy";
 * test/strategies/tables.test.ts finds the tables outside the code that must name it).
 *
 * This component sits below users (which inserts under the ids a source takes) and knows nothing
 * of users, stats or the API.
 */
import { z } from 'zod';
import { block } from './block/index';
import { counter } from './counter/index';
import { optimisticLoop } from './optimistic-loop/index';
import { transaction } from './transaction/index';
import type { IdSource, IdSourceDeps, Strategy, StrategyProperties } from './strategy';

export const STRATEGIES = {
  COUNTER: counter,
  OPTIMISTIC_LOOP: optimisticLoop,
  BLOCK: block,
  TRANSACTION: transaction,
} as const satisfies Record<string, Strategy>;

export type IdStrategy = keyof typeof STRATEGIES;

/** Every strategy, in the order the docs, the stats and the bench list them. */
export const ID_STRATEGIES = Object.keys(STRATEGIES) as readonly IdStrategy[];

export function isIdStrategy(value: unknown): value is IdStrategy {
  return typeof value === 'string' && Object.hasOwn(STRATEGIES, value);
}

/** The strategies with a property, in list order. */
export function strategiesWhere(property: keyof StrategyProperties): readonly IdStrategy[] {
  return ID_STRATEGIES.filter((strategy) => STRATEGIES[strategy].properties[property]);
}

/** The strategies fed by the `userid` counter (COUNTER, BLOCK, TRANSACTION). */
export const COUNTER_FED_STRATEGIES = strategiesWhere('fedByCounter');

const settingsShape = Object.fromEntries(
  ID_STRATEGIES.map((strategy) => [strategy, STRATEGIES[strategy].settings]),
) as { [S in IdStrategy]: (typeof STRATEGIES)[S]['settings'] };

/**
 * Every strategy's settings, for `loadEnvironment` (src/config.ts): each strategy's schema reads
 * its own variables from the whole environment.
 */
export const STRATEGY_SETTINGS = z.preprocess(
  (env) => Object.fromEntries(ID_STRATEGIES.map((strategy) => [strategy, env])),
  z.object(settingsShape),
);

export type StrategySettings = z.output<typeof STRATEGY_SETTINGS>;

/**
 * One id source per strategy, for one `Users` (one process), each given its own settings (the
 * users component passes them on unread).
 */
export function idSources(
  deps: IdSourceDeps,
  settings: StrategySettings,
): Record<IdStrategy, IdSource> {
  const sources = {} as Record<IdStrategy, IdSource>;
  for (const strategy of ID_STRATEGIES) {
    const listed: Strategy = STRATEGIES[strategy];
    sources[strategy] = listed.createSource(deps, settings[strategy]);
  }
  return sources;
}

export type {
  CreationTally,
  IdSource,
  IdSourceDeps,
  RoundInsert,
  Strategy,
  StrategyProperties,
  TakenIds,
  TakingIdSource,
  TransactionalIdSource,
} from './strategy';
export { newCreationTally } from './strategy';
export { USER_ID_SEQUENCE } from './user-id-counter';
export { UserIdTurns } from './user-id-turns';
