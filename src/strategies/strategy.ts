/**
 * What an id strategy is: its properties (what it promises; the README's strategy table states
 * them and tests select strategies by them), its settings (the environment variables it reads,
 * with their defaults and bounds) and its id source (how it takes ids for one round of inserts).
 * Each strategy lives in its own folder beside this file and is listed once in `index.ts`.
 *
 * Invariants every source keeps: a candidate id is only a proposal; the unique index on `_id`
 * decides, so no strategy can store a duplicate, whatever the others do on the same collection.
 * Every source gives up after `maxRounds`. Every command a source sends is added to the tally it
 * was handed (see `CommandTally`, src/database).
 */
import type { ClientSession, MongoClient } from 'mongodb';
import { z } from 'zod';
import type { CommandTally } from '../database/index';
import type { DroppedReason, HeldValues, Sequences } from '../sequences/index';
import type { UserIdTurns } from './user-id-turns';

/** What one call that creates users spent, reported to the stats. */
export interface CreationTally extends CommandTally {
  /** Counter drift repairs (`$max` of the `userid` counter to the largest stored `_id`). */
  counterRepairs: number;
}

export function newCreationTally(): CreationTally {
  return { commands: 0, counterRepairs: 0 };
}

export interface StrategyProperties {
  /**
   * Takes its ids from the `userid` counter: a taken id repairs the counter's drift, a refused
   * insert gives its id back where that is safe, and `setSequence` on `userid` moves its ids.
   */
  readonly fedByCounter: boolean;
  /**
   * With nothing refused and no other writer, the ids it issues one after another are consecutive
   * (n, n + 1, ...): 1..N on an empty collection, and a batch's ids follow one another.
   */
  readonly consecutiveIds: boolean;
  /** Ids come in creation order across every process (BLOCK's do not: each process has a block). */
  readonly idsInTimeOrder: boolean;
  /** Issues the id of a deleted newest user again (max + 1). */
  readonly reissuesDeletedNewest: boolean;
  /**
   * A refused insert, a fault or a crash consumes no id (the `$inc` is rolled back with the
   * insert): the ids it stores are 1..N with no hole.
   */
  readonly leavesNoHoles: boolean;
  /**
   * Concurrent single creations of one process share one insert (TRANSACTION: one transaction)
   * instead of one each, so commands per user fall as concurrency rises. A taking source with it
   * must serve `take` from memory and give back without a command (BLOCK's block): a group then
   * costs its one insert, and a group's give-back writes nothing for any member, whatever its
   * deadline (src/users/insert-groups.ts). COUNTER has it not: it stays the tutorial's method, one
   * `findAndModify` and one insert per user, for clients to compare with.
   */
  readonly groupsCreations: boolean;
}

/** The candidate ids of one `take`, and the way back for those stored nowhere. */
export interface TakenIds {
  readonly ids: number[];
  /**
   * `unstored`: positions in `ids` whose documents the server refused on another unique key than
   * `_id`, so no document has them. Gives back what the source safely can; the rest stay gaps.
   * Called at most once, after the insert; sends at most one command.
   */
  giveBack(unstored: ReadonlySet<number>, tally: CreationTally): Promise<void>;
}

/** Every source: its ids are taken, then inserted under (`TakingIdSource`), or in one transaction. */
export type IdSource = TakingIdSource | TransactionalIdSource;

/** A source that takes ids; the users component then inserts under them, outside any transaction. */
export interface TakingIdSource {
  /** `count` candidate ids, all different, in ascending order. */
  take(count: number, tally: CreationTally): Promise<TakenIds>;
  /** Runs in the round whose candidates were taken by others, at once (no command, no wait). */
  onCollision?(): void;
  /**
   * Runs after candidates of round `round` (1-based) were taken by others, at the start of the
   * next round, in its turn, before taking again: a counter repair, or a back-off.
   */
  afterCollision(round: number, tally: CreationTally): Promise<void>;
  /** Insert rounds before the remaining documents fail with ID_CONTENTION. */
  readonly maxRounds: number;
  /**
   * Whether a round after a collision (`afterCollision`, take, insert) runs alone in the process
   * (`UserIdTurns`): a counter repair only frees the next ids if no insert of this process takes
   * them between the repair and the insert. Not for a source that waits in `afterCollision`.
   */
  readonly retriesAlone: boolean;
  /** At a clean shutdown: gives back the ids this process holds where that is safe. */
  release?(): Promise<HeldValues>;
}

/** What the insert of a transactional round answers: `commit: false` rolls back its ids too. */
export interface RoundInsert<T> {
  commit: boolean;
  value: T;
}

/**
 * A source whose ids are taken in the same transaction as the insert (TRANSACTION): an insert it
 * does not commit takes no id at all.
 */
export interface TransactionalIdSource {
  /**
   * Takes `count` ids, all different and ascending, and runs `insert` under them in one
   * transaction with the `$inc`, alone among this process's rounds (`UserIdTurns`); commits
   * when `insert` answers `commit: true`, else rolls both back (so deadlines are `insert`'s to
   * check: its caller's group may hold several). Transient failures run it again (bounded), so
   * `insert` may run more than once, each time with the ids of that attempt. Out of attempts:
   * ID_CONTENTION, nothing stored. `repairFirst`: an `_id` of the previous round was taken, so
   * the counter is repaired first, in the same turn: between a repair and the `$inc` no insert of
   * this process may take the repaired counter's next id (beside optimistic traffic a repair in
   * a turn of its own was overtaken round after round, up to ID_CONTENTION).
   */
  takeWithInsert<T>(
    count: number,
    tally: CreationTally,
    insert: (ids: number[], session: ClientSession) => Promise<RoundInsert<T>>,
    repairFirst?: boolean,
  ): Promise<T>;
  readonly maxRounds: number;
  readonly release?: undefined;
}

/** What a source may use; one source per strategy per `Users` (one per process). */
export interface IdSourceDeps {
  sequences: Sequences;
  /** For sessions (TRANSACTION). */
  client: MongoClient;
  /** This process's turns on the `userid` counter; the users component takes the shared ones. */
  turns: UserIdTurns;
  /** Server-side bound of each command (DB_TIMEOUT_MS); a commit's too. */
  maxTimeMS: number;
  /** The largest stored user `_id` (one command, added to the tally). */
  maxId(tally: CreationTally): Promise<number>;
  /** Hears the ids of BLOCK's blocks that will never be handed out (gaps), for the metrics. */
  onBlockIdsDropped?: (count: number, reason: DroppedReason) => void;
}

/**
 * A strategy's settings: a zod object whose keys are the environment variables it reads, each
 * with its default and its bounds (their reasons beside them), and refinements between them. The
 * README's configuration table has a row for each (test/strategies/tables.test.ts).
 */
export type StrategySettingsSchema = z.ZodObject;

/** The settings of a strategy that reads no variable. */
export const NO_SETTINGS = z.object({});

export interface Strategy<Settings extends StrategySettingsSchema = StrategySettingsSchema> {
  readonly properties: StrategyProperties;
  readonly settings: Settings;
  /** `settings`: the variables of `settings` as read from this process's environment. */
  createSource(deps: IdSourceDeps, settings: z.output<Settings>): IdSource;
}
