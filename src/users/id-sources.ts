/**
 * Where each strategy gets candidate ids, and what it does when one turns out to be taken.
 *
 * Invariants: a candidate id is only a proposal; the unique index on `_id` decides, so no strategy
 * can store a duplicate, whatever the others do on the same collection. COUNTER and BLOCK take ids
 * from the `userid` counter, which can lag behind the largest stored `_id` (optimistic inserts,
 * imports): a collision moves the counter up to that `_id` (`$max`, never down) before taking
 * again, so the next ids are free and the counter never reissues one. OPTIMISTIC_LOOP has no
 * counter: a collision only means a concurrent writer won, so it backs off with jitter (spreading
 * the contenders) and reads the maximum again. Every source gives up after `maxRounds`.
 *
 * Giving back: an id whose document the server refused for its email or idempotency key was
 * stored nowhere, and issue 3 wants refused input to consume no counter value. What can safely be
 * given back is, with no extra command on the success path:
 * - COUNTER: the trailing run of the range when it is still the newest of the counter (one
 *   compare-and-set, `Sequences.releaseUnused`). A concurrent allocation, or an unstored id with a
 *   stored one after it in a batch, makes it a gap: values below the top cannot be given back
 *   without reissuing around them. A give-back the database fails to answer also leaves a gap: the
 *   caller's answer (e.g. duplicate email) stands.
 * - BLOCK: every such id goes back to this process's allocator, which hands it out next (no
 *   command; no other process ever saw it).
 * - OPTIMISTIC_LOOP consumes nothing, so it gives nothing back.
 */
import { MongoError } from 'mongodb';
import {
  SequenceCorruptError,
  SequenceExhaustedError,
  type AllocatedRange,
  type BlockAllocator,
  type SequenceKey,
  type Sequences,
  valuesOf,
} from '../sequences/index.js';
import type { IdStrategy } from './strategy.js';
import type { CreationCost } from './cost.js';

/** The counter that feeds user ids, named as in MongoDB's tutorial. */
export const USER_ID_SEQUENCE: SequenceKey = { name: 'userid' };

/** Counter-fed strategies retry after a repair; more rounds only happen under optimistic traffic. */
export const COUNTER_MAX_ROUNDS = 20;
const BACKOFF_BASE_MS = 2;
const BACKOFF_CAP_MS = 1000;

/** The candidate ids of one `take`, and the way back for those stored nowhere. */
export interface TakenIds {
  readonly ids: number[];
  /**
   * `unstored`: positions in `ids` whose documents the server refused on another unique key than
   * `_id`, so no document has them. Gives back what the source safely can (see the header); the
   * rest stay gaps. Called at most once, after the insert; sends at most one command.
   */
  giveBack(unstored: ReadonlySet<number>, cost: CreationCost): Promise<void>;
}

export interface IdSource {
  /** `count` candidate ids, all different. */
  take(count: number, cost: CreationCost): Promise<TakenIds>;
  /** Runs after candidates of round `round` (1-based) were taken by others, before taking again. */
  afterCollision(round: number, cost: CreationCost): Promise<void>;
  /** Insert rounds before the remaining documents fail with ID_CONTENTION. */
  readonly maxRounds: number;
}

export interface IdSourceDeps {
  sequences: Sequences;
  blocks: BlockAllocator;
  /** The largest stored `_id` (one command, added to the cost). */
  maxId(cost: CreationCost): Promise<number>;
  optimisticMaxAttempts: number;
}

async function repairCounterDrift(deps: IdSourceDeps, cost: CreationCost): Promise<void> {
  await deps.sequences.repairCounterDrift(USER_ID_SEQUENCE, await deps.maxId(cost), cost);
  cost.counterRepairs += 1;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Refuses ids a user must never get: a `userid` counter written by someone else (or defined with
 * another start by version 0.1) can hand out 0 or negative values. Nothing is stored under them.
 */
function assertIssuable(ids: readonly number[]): void {
  const lowest = Math.min(...ids);
  if (lowest >= 1) return;
  throw new SequenceCorruptError(
    `The "userid" counter issued ${lowest} as a user id; user ids start at 1. Nothing was stored. ` +
      'An operator must repair the counter, e.g. in mongosh: db.counters.updateOne({ _id: "userid" }, ' +
      '{ $set: { seq: NumberLong(<the largest user _id, at least 0>), start: NumberLong(1), step: 1 }, $unset: { max: "" } })',
  );
}

/** COUNTER's give-back: the unstored run at the end of `range`, if the counter still ends there. */
async function releaseTrailing(
  deps: IdSourceDeps,
  range: AllocatedRange,
  unstored: ReadonlySet<number>,
  cost: CreationCost,
): Promise<void> {
  let count = 0;
  while (count < range.count && unstored.has(range.count - 1 - count)) count += 1;
  if (count === 0) return;
  const tail = {
    first: range.last - (count - 1) * range.step,
    last: range.last,
    step: range.step,
    count,
  };
  try {
    await deps.sequences.releaseUnused(USER_ID_SEQUENCE, tail, cost);
  } catch (err) {
    if (!(err instanceof MongoError)) throw err;
  }
}

export function idSources(deps: IdSourceDeps): Record<IdStrategy, IdSource> {
  return {
    COUNTER: {
      maxRounds: COUNTER_MAX_ROUNDS,
      async take(count, cost) {
        const range = await deps.sequences.allocate(USER_ID_SEQUENCE, count, cost);
        const ids = valuesOf(range);
        assertIssuable(ids);
        return {
          ids,
          giveBack: (unstored, giveBackCost) =>
            releaseTrailing(deps, range, unstored, giveBackCost),
        };
      },
      afterCollision: (_round, cost) => repairCounterDrift(deps, cost),
    },
    BLOCK: {
      maxRounds: COUNTER_MAX_ROUNDS,
      async take(count, cost) {
        const ids = await deps.blocks.take(count, cost);
        try {
          assertIssuable(ids);
        } catch (err) {
          deps.blocks.discardBlock();
          throw err;
        }
        return {
          ids,
          async giveBack(unstored) {
            deps.blocks.giveBack(ids.filter((_, position) => unstored.has(position)));
          },
        };
      },
      async afterCollision(_round, cost) {
        deps.blocks.discardBlock();
        await repairCounterDrift(deps, cost);
      },
    },
    OPTIMISTIC_LOOP: {
      maxRounds: deps.optimisticMaxAttempts,
      async take(count, cost) {
        const max = await deps.maxId(cost);
        if (max + count > Number.MAX_SAFE_INTEGER)
          throw new SequenceExhaustedError(
            'User ids have reached 2^53 - 1; no further user can be created.',
          );
        return {
          ids: Array.from({ length: count }, (_, i) => max + 1 + i),
          giveBack: async () => undefined,
        };
      },
      async afterCollision(round) {
        await sleep(Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** round));
      },
    },
  };
}
