/**
 * Inserting documents under ids from a strategy's source, retrying only those whose id was taken.
 *
 * Invariants: each round is one id request and one unordered insert for every document still
 * pending, so a batch of n costs 2 commands when nothing collides, like a single user. Only a
 * duplicate `_id` is retried (bounded by the source's `maxRounds`); a duplicate email or
 * idempotency key is reported for the caller to resolve, never retried, since another id cannot
 * fix it; its id was stored nowhere, so it is given back to the source (which keeps what it safely
 * can; see `id-sources.ts`) before anything else happens in the round. That costs a command only
 * when an insert was refused, never on the success path. A document is stored at most once: it is
 * retried only after the server refused it. No write starts once `options.signal` has fired: each
 * round checks it before taking ids, before the insert and before a repair; a give-back is then
 * skipped too (its ids stay gaps).
 */
import { Long } from 'bson';
import type { Collection } from 'mongodb';
import { beforeWrite, type WriteOptions } from '../database/index.js';
import { DomainError } from '../errors.js';
import type { CreationCost } from './cost.js';
import { IdContentionError } from './errors.js';
import type { IdSource, TakenIds } from './id-sources.js';
import { insertUnordered } from './insert.js';
import type { UserDocument } from './model.js';

export type UnsavedUser = Omit<UserDocument, '_id'>;

export type InsertResult =
  { created: UserDocument } | { duplicateOn: 'email' | 'idempotencyKey' } | { error: DomainError };

export interface InsertReport {
  /** One per document, in order. */
  results: InsertResult[];
  /** Insert attempts per document, duplicate-key retries included. */
  attempts: number[];
  /** Documents sent again after their `_id` was taken. */
  duplicateKeyRetries: number;
}

export async function insertWithFreshIds(
  users: Collection<UserDocument>,
  unsaved: UnsavedUser[],
  source: IdSource,
  cost: CreationCost,
  options?: WriteOptions & { beforeInsert?: (docs: UserDocument[]) => void },
): Promise<InsertReport> {
  const results: InsertResult[] = new Array(unsaved.length);
  const attempts: number[] = new Array(unsaved.length).fill(0);
  let duplicateKeyRetries = 0;
  let pending = unsaved.map((_, position) => position);

  for (let round = 1; pending.length > 0; round += 1) {
    let taken: TakenIds;
    beforeWrite(options);
    try {
      taken = await source.take(pending.length, cost);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      for (const position of pending) results[position] = { error: err };
      break;
    }
    const docs = pending.map((position, k) => ({
      _id: Long.fromNumber(taken.ids[k]),
      ...unsaved[position],
    }));
    beforeWrite(options);
    options?.beforeInsert?.(docs);
    const refused = await insertUnordered(users, docs, cost);

    const collided: number[] = [];
    const unstored = new Set<number>();
    pending.forEach((position, k) => {
      attempts[position] += 1;
      const field = refused.get(k);
      if (field === undefined) results[position] = { created: docs[k] };
      else if (field === '_id') collided.push(position);
      else {
        results[position] = { duplicateOn: field };
        unstored.add(k);
      }
    });
    if (unstored.size > 0 && !options?.signal?.aborted) await taken.giveBack(unstored, cost);
    if (collided.length > 0 && round >= source.maxRounds) {
      for (const position of collided) {
        results[position] = { error: new IdContentionError(attempts[position]) };
      }
      break;
    }
    if (collided.length > 0) {
      duplicateKeyRetries += collided.length;
      beforeWrite(options);
      await source.afterCollision(round, cost);
    }
    pending = collided;
  }
  return { results, attempts, duplicateKeyRetries };
}
