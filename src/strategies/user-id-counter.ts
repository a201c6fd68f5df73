/**
 * The `userid` counter, which feeds the counter-fed strategies (COUNTER and BLOCK), and what they
 * share about it.
 *
 * Invariants: the counter can lag behind the largest stored `_id` (optimistic inserts, imports): a
 * collision moves it up to that `_id` (`$max`, never down) before taking again, so the next ids are
 * free and the counter never reissues one. A counter written by someone else never yields an id
 * below 1: nothing is stored under one.
 *
 * Giving back (COUNTER): an id whose document the server refused for its email or idempotency key
 * was stored nowhere, and issue 3 wants refused input to consume no counter value. The trailing
 * run of the range can be given back when it is still the newest of the counter (one
 * compare-and-set, `Sequences.releaseUnused`). A concurrent allocation, or an unstored id with a
 * stored one after it in a batch, makes it a gap: values below the top cannot be given back
 * without reissuing around them. A give-back the database fails to answer also leaves a gap: the
 * caller's answer (e.g. duplicate email) stands.
 */
import { annotateActiveSpan } from '../telemetry/index';
import { MongoError } from 'mongodb';
import { SequenceCorruptError, type AllocatedRange, type SequenceKey } from '../sequences/index';
import type { CreationTally, IdSourceDeps } from './strategy';

/** The counter that feeds user ids, named as in MongoDB's tutorial. */
export const USER_ID_SEQUENCE: SequenceKey = { name: 'userid' };

/**
 * Whose turn it is to number users in this process: a transactional round (TRANSACTION) and a
 * counter-fed round retrying after a collision (repair, take, insert: `retriesAlone`, see
 * src/users/fresh-ids.ts) run alone, every other round (take, insert, give back) beside the others.
 *
 * Why: a TRANSACTION round holds the `userid` counter's document and its new `_id`s locked at the
 * server until it commits, and a plain write that meets those locks (COUNTER's or BLOCK's `$inc`,
 * OPTIMISTIC_LOOP's insert of the same max + 1, a drift repair) waits there, as on mongod, holding
 * one of the driver's pooled connections. Enough of them fill the pool, and the commit that would
 * release them waits for a connection: a deadlock that only their maxTimeMS ends (CI met it: 500
 * mixed creations, "operation exceeded time limit"). With turns, such writes wait here, holding
 * nothing, and a transaction never meets a write of its own process, so it conflicts
 * (WriteConflict) only with other processes. Rounds of other processes still wait at the server,
 * on their own connections, for as long as one transaction lasts.
 *
 * Fair: turns are granted in request order (a round that cannot start waits behind every round
 * requested before it, so a waiting transactional round holds back the shared rounds that come
 * after it), so neither side starves.
 *
 * Why written here rather than with async-mutex's `Semaphore` (its `acquire` with a weight): a
 * round that may start at once (nearly every COUNTER and BLOCK round) starts in the caller's own
 * turn here, where `acquire` cost it a promise, a turn of microtasks, a releaser closure and a scan
 * of the whole capacity at every release (docs/benchmark.md, "CPU levers of 0.4").
 */
export class UserIdTurns {
  /**
   * Shared rounds at once. More would gain nothing: the driver sends at most `maxPoolSize`
   * (100 by default) commands at once.
   */
  static readonly SHARED_AT_ONCE = 128;
  /** The weight of the rounds running: 1 per shared round, SHARED_AT_ONCE for a round alone. */
  private running = 0;
  /** The rounds that could not start when requested, in request order. */
  private readonly waiting: Array<{ weight: number; start: () => void }> = [];

  /** Runs a round that writes outside any transaction; such rounds run together. */
  shared<T>(round: () => Promise<T>): Promise<T> {
    return this.inTurn(round, 1);
  }

  /** Runs a round alone in this process (a transaction, a counter-fed retry). */
  alone<T>(round: () => Promise<T>): Promise<T> {
    return this.inTurn(round, UserIdTurns.SHARED_AT_ONCE);
  }

  private inTurn<T>(round: () => Promise<T>, weight: number): Promise<T> {
    if (this.waiting.length === 0 && this.running + weight <= UserIdTurns.SHARED_AT_ONCE) {
      this.running += weight;
      return this.run(round, weight);
    }
    const queuedAt = performance.now();
    return new Promise<void>((start) => this.waiting.push({ weight, start })).then(() => {
      // The request's trace shows the wait (src/telemetry); the instrumentations cannot see it.
      annotateActiveSpan({ 'sequential_ids.turn_waited_ms': performance.now() - queuedAt });
      return this.run(round, weight);
    });
  }

  /** Runs a round whose weight is already counted in `running`; ends its turn whatever happens. */
  private async run<T>(round: () => Promise<T>, weight: number): Promise<T> {
    try {
      return await round();
    } finally {
      this.running -= weight;
      this.startWaiting();
    }
  }

  /** Starts the waiting rounds, first come first, while the first of them fits. */
  private startWaiting(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0];
      if (this.running + next.weight > UserIdTurns.SHARED_AT_ONCE) return;
      this.waiting.shift();
      this.running += next.weight;
      next.start();
    }
  }
}

/** Counter-fed strategies retry after a repair; more rounds only happen under optimistic traffic. */
export const COUNTER_MAX_ROUNDS = 20;

export async function repairCounterDrift(deps: IdSourceDeps, tally: CreationTally): Promise<void> {
  await deps.sequences.repairCounterDrift(USER_ID_SEQUENCE, await deps.maxId(tally), tally);
  tally.counterRepairs += 1;
}

/**
 * Refuses ids a user must never get: a `userid` counter written by someone else (or defined with
 * another start by version 0.1) can hand out 0 or negative values. Nothing is stored under them.
 */
export function assertIssuable(ids: readonly number[]): void {
  const lowest = Math.min(...ids);
  if (lowest >= 1) return;
  throw new SequenceCorruptError(
    `The "userid" counter issued ${lowest} as a user id; user ids start at 1. Nothing was stored. ` +
      'An operator must repair the counter, e.g. in mongosh: db.counters.updateOne({ _id: "userid" }, ' +
      '{ $set: { seq: NumberLong(<the largest user _id, at least 0>), start: NumberLong(1), step: 1 }, $unset: { max: "" } })',
  );
}

/** COUNTER's give-back: the unstored run at the end of `range`, if the counter still ends there. */
export async function releaseTrailing(
  deps: IdSourceDeps,
  range: AllocatedRange,
  unstored: ReadonlySet<number>,
  tally: CreationTally,
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
    await deps.sequences.releaseUnused(USER_ID_SEQUENCE, tail, tally);
  } catch (err) {
    if (!(err instanceof MongoError)) throw err;
  }
}
