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
 */
import {
  SequenceExhaustedError,
  type BlockAllocator,
  type SequenceKey,
  type Sequences,
} from '../sequences/index.js';
import type { IdStrategy } from '../stats/index.js';
import type { CreationCost } from './cost.js';

/** The counter that feeds user ids, named as in MongoDB's tutorial. */
export const USER_ID_SEQUENCE: SequenceKey = { name: 'userid' };

/** Counter-fed strategies retry after a repair; more rounds only happen under optimistic traffic. */
export const COUNTER_MAX_ROUNDS = 20;
const BACKOFF_BASE_MS = 2;
const BACKOFF_CAP_MS = 1000;

export interface IdSource {
  /** `count` candidate ids, all different. */
  take(count: number, cost: CreationCost): Promise<number[]>;
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

export function idSources(deps: IdSourceDeps): Record<IdStrategy, IdSource> {
  return {
    COUNTER: {
      maxRounds: COUNTER_MAX_ROUNDS,
      async take(count, cost) {
        const range = await deps.sequences.allocate(USER_ID_SEQUENCE, count, cost);
        return Array.from({ length: range.count }, (_, i) => range.first + i * range.step);
      },
      afterCollision: (_round, cost) => repairCounterDrift(deps, cost),
    },
    BLOCK: {
      maxRounds: COUNTER_MAX_ROUNDS,
      take: (count, cost) => deps.blocks.take(count, cost),
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
        return Array.from({ length: count }, (_, i) => max + 1 + i);
      },
      async afterCollision(round) {
        await sleep(Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** round));
      },
    },
  };
}
