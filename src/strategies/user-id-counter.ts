/**
 * The `userid` counter, which feeds the counter-fed strategies (COUNTER, BLOCK and TRANSACTION:
 * `fedByCounter`), and what they share about it: its key, their rounds' bound, the drift repair,
 * the floor of an issuable id, and COUNTER's give-back. The process's turns on it are
 * ./user-id-turns.ts.
 *
 * Invariants: the counter can lag behind the largest stored `_id` (optimistic inserts, imports): a
 * collision moves it up to that `_id` (`$max`, never down) before taking again, so the next ids are
 * free and the counter never reissues one. A counter written by someone else never yields an id
 * below 1: nothing is stored under one.
 *
 * Giving back (COUNTER): an id whose document the server refused for its email or idempotency key
 * was stored nowhere, and refused input should consume no counter value. The trailing run of the
 * range can be given back when it is still the newest of the counter (one compare-and-set,
 * `Sequences.releaseUnused`). A concurrent allocation, or an unstored id with a stored one after
 * it in a batch, makes it a gap: values below the top cannot be given back without reissuing
 * around them. A give-back the database fails to answer also leaves a gap: the caller's answer
 * (e.g. duplicate email) stands.
 */
import { MongoError } from 'mongodb';
import { SequenceCorruptError, type AllocatedRange, type SequenceKey } from '../sequences/index';
import type { CreationTally, IdSourceDeps } from './strategy';

/** The counter that feeds user ids, named as in MongoDB's tutorial. */
export const USER_ID_SEQUENCE: SequenceKey = { name: 'userid' };

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
