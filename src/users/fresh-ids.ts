/**
 * Inserting documents under ids from a strategy's source, retrying only those whose id was taken.
 *
 * Invariants: each round is one id request and one unordered insert for every document still
 * pending, so a batch of n costs 2 commands when nothing collides, like a single user. Only a
 * duplicate `_id` is retried (bounded by the source's `maxRounds`); a duplicate email or
 * idempotency key is reported for the caller to resolve, never retried, since another id cannot
 * fix it; its id was stored nowhere, so it is given back to the source (which keeps what it safely
 * can; see src/strategies) before anything else happens in the round. That costs a command only
 * when an insert was refused, never on the success path. A document is stored at most once: it is
 * retried only after the server refused it. No write starts once `options.signal` has fired: each
 * round checks it before taking ids, before the insert and before a repair; a give-back is then
 * skipped too (its ids stay gaps).
 *
 * Input order: ids come in input order from every source, so a batch is stored in input order
 * unless an `_id` was taken (the counter lagged behind stored ids: drift). Then the items after the
 * first collided one that were stored in that round are withdrawn (deleted, one command; nobody was
 * told their ids yet) and taken again with the collided ones, so the batch stays in input order.
 * Except items with an idempotency key: a concurrent retry may already have replayed them, so they
 * keep their ids and may then come before earlier items (the README says so).
 *
 * A transactional source (TRANSACTION) takes its ids in the insert's transaction instead
 * (`insertInGroups`, with the rounds waiting beside it: ./transaction-groups.ts): a refused document rolls its whole round back, ids included, then fails
 * alone while the others go again, so a refused item consumes no id and nothing is withdrawn.
 *
 * Groups (`groupsCreations`, BLOCK): a single creation's first round goes into the source's next
 * insert group (./insert-groups.ts), where the creations that waited share one insert; a
 * creation whose `_id` was taken there goes on alone with the rounds below.
 *
 * Turns: every round that writes outside a transaction runs in a shared turn of the process's
 * `UserIdTurns`, a group transaction alone (src/strategies/user-id-turns.ts says why). So does a
 * counter-fed source's round after a collision (`retriesAlone`): its repair moves the counter to
 * the largest stored `_id`, and beside this process's optimistic inserts (max + 1, no counter) the
 * next id was taken again before the insert, round after round (16 optimistic lanes made every
 * COUNTER creation fail with ID_CONTENTION after its 20 rounds, test/users/concurrency.test.ts).
 * Alone, a retry collides again only with another process's writes.
 */
import { Long } from 'bson';
import { beforeWrite, countCommand } from '../database/index';
import { DomainError } from '../errors';
import {
  STRATEGIES,
  type CreationTally,
  type IdSource,
  type IdStrategy,
  type TakenIds,
  type TakingIdSource,
  type UserIdTurns,
} from '../strategies/index';
import { IdContentionError } from './errors';
import { insertUnordered, type InsertOptions, type InsertResult, type UnsavedUser } from './insert';
import { InsertGroups, roundResult, type OneCreation } from './insert-groups';
import type { UserDocument, UsersCollection } from './model';
import { TransactionGroups, type MemberRound } from './transaction-groups';

export interface InsertReport {
  /** One per document, in order. */
  results: InsertResult[];
  /** Insert attempts per document, duplicate-key retries included. */
  attempts: number[];
  /** Documents sent again after their `_id` was taken. */
  duplicateKeyRetries: number;
}

/**
 * How one strategy numbers users in this process: a taking source with the process's turns on the
 * `userid` counter (see src/strategies) and, when it groups creations, its insert groups; or a
 * transactional source's group transactions.
 */
export type Numbering =
  | { source: TakingIdSource; turns: UserIdTurns; insertGroups?: InsertGroups }
  | { groups: TransactionGroups };

/** One `Numbering` per strategy, for one `Users` (one process). */
export function numberings(
  users: UsersCollection,
  sources: Record<IdStrategy, IdSource>,
  turns: UserIdTurns,
): Record<IdStrategy, Numbering> {
  const all = {} as Record<IdStrategy, Numbering>;
  for (const [strategy, source] of Object.entries(sources) as Array<[IdStrategy, IdSource]>) {
    if ('takeWithInsert' in source)
      all[strategy] = { groups: new TransactionGroups(users, source) };
    else if (STRATEGIES[strategy].properties.groupsCreations) {
      all[strategy] = { source, turns, insertGroups: new InsertGroups(users, source, turns) };
    } else all[strategy] = { source, turns };
  }
  return all;
}

export async function insertWithFreshIds(
  users: UsersCollection,
  unsaved: UnsavedUser[],
  numbering: Numbering,
  tally: CreationTally,
  options?: InsertOptions,
): Promise<InsertReport> {
  if ('groups' in numbering) return insertInGroups(unsaved, numbering.groups, tally, options);
  if (unsaved.length === 1) {
    const one = await insertOneWithFreshId(users, unsaved[0], numbering, tally, options);
    return {
      results: [one.result],
      attempts: [one.attempts],
      duplicateKeyRetries: one.duplicateKeyRetries,
    };
  }
  const { source, turns } = numbering;
  const report: InsertReport = {
    results: new Array(unsaved.length),
    attempts: new Array(unsaved.length).fill(0),
    duplicateKeyRetries: 0,
  };
  let pending = unsaved.map((_, position) => position);
  for (let round = 1; pending.length > 0; round += 1) {
    const inserting = pending;
    const run = () =>
      takingRound(round, inserting, { users, unsaved, source, tally, options, report });
    pending = await (round > 1 && source.retriesAlone ? turns.alone(run) : turns.shared(run));
  }
  return report;
}

interface TakingRound {
  users: UsersCollection;
  unsaved: UnsavedUser[];
  source: TakingIdSource;
  tally: CreationTally;
  options?: InsertOptions;
  report: InsertReport;
}

/**
 * One round of a taking source: after a collision the source's repair (or back-off), then take,
 * insert, give back, withdraw; answers what is still pending.
 */
async function takingRound(
  round: number,
  pending: number[],
  { users, unsaved, source, tally, options, report }: TakingRound,
): Promise<number[]> {
  const { results, attempts } = report;
  let taken: TakenIds;
  beforeWrite(options);
  if (round > 1) {
    await source.afterCollision(round - 1, tally);
    beforeWrite(options);
  }
  try {
    taken = await source.take(pending.length, tally);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    for (const position of pending) results[position] = { error: err };
    return [];
  }
  const docs = pending.map((position, k) => ({
    _id: Long.fromNumber(taken.ids[k]),
    ...unsaved[position],
  }));
  beforeWrite(options);
  options?.beforeInsert?.(docs);
  const refused = await insertUnordered(users, docs, tally);

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
  if (unstored.size > 0 && !options?.signal?.aborted) await taken.giveBack(unstored, tally);
  if (collided.length === 0) return [];
  source.onCollision?.();
  if (round >= source.maxRounds) {
    for (const position of collided) {
      results[position] = { error: new IdContentionError(attempts[position]) };
    }
    return [];
  }
  report.duplicateKeyRetries += collided.length;
  const withdrawn = await withdrawAfter(users, collided[0], pending, docs, results, tally);
  return [...collided, ...withdrawn].sort((a, b) => a - b);
}

/** `InsertReport` for one document. */
export interface SingleInsertReport {
  result: InsertResult;
  attempts: number;
  duplicateKeyRetries: number;
}

/**
 * `insertWithFreshIds` for one document: the same rounds (take, insert, give back; a repair and a
 * turn alone after a collision), without a batch's bookkeeping (positions, a result and a count per
 * document, the withdrawal, which needs a second document). With insert groups (BLOCK) its first
 * round is its share of a group (./insert-groups.ts), and only a retry after a taken `_id` runs
 * here. Why a path of its own: nearly every creation is one `createUser`, and a batch of one cost it
 * measurably more CPU per user (bench/results/0.4.md, "CPU levers of 0.4, part 3"). So a rule of
 * the rounds is written twice, here and in `takingRound`: test/users/plain-creation.test.ts holds
 * the two to the same commands in the same order, outcomes, stored documents and stats.
 */
export async function insertOneWithFreshId(
  users: UsersCollection,
  unsaved: UnsavedUser,
  numbering: Numbering,
  tally: CreationTally,
  options?: InsertOptions,
): Promise<SingleInsertReport> {
  if ('groups' in numbering) {
    const report = await insertInGroups([unsaved], numbering.groups, tally, options);
    const [result] = report.results;
    const [attempts] = report.attempts;
    return { result, attempts, duplicateKeyRetries: report.duplicateKeyRetries };
  }
  const { source, turns, insertGroups } = numbering;
  const one: SingleRound = { users, unsaved, source, tally, options, attempts: 0, retries: 0 };
  let round = 1;
  if (insertGroups !== undefined) {
    const result = await insertGroups.firstRound(one);
    if (result !== null) {
      return { result, attempts: one.attempts, duplicateKeyRetries: one.retries };
    }
    round = 2;
  }
  for (; ; round += 1) {
    const run = () => singleRound(round, one);
    const result = await (round > 1 && source.retriesAlone ? turns.alone(run) : turns.shared(run));
    if (result !== null) {
      return { result, attempts: one.attempts, duplicateKeyRetries: one.retries };
    }
  }
}

interface SingleRound extends OneCreation {
  users: UsersCollection;
  source: TakingIdSource;
}

/** `takingRound` for one document; null when its `_id` was taken and it goes again. */
async function singleRound(round: number, one: SingleRound): Promise<InsertResult | null> {
  const { users, unsaved, source, tally, options } = one;
  beforeWrite(options);
  if (round > 1) {
    await source.afterCollision(round - 1, tally);
    beforeWrite(options);
  }
  let taken: TakenIds;
  try {
    taken = await source.take(1, tally);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { error: err };
  }
  const doc: UserDocument = { _id: Long.fromNumber(taken.ids[0]), ...unsaved };
  beforeWrite(options);
  options?.beforeInsert?.([doc]);
  const field = (await insertUnordered(users, [doc], tally)).get(0);
  if (field === '_id') source.onCollision?.();
  else if (field !== undefined && !options?.signal?.aborted) {
    await taken.giveBack(new Set([0]), tally);
  }
  return roundResult(round, one, doc, field, source.maxRounds);
}

/**
 * Deletes the documents this round stored for items after `firstCollided` (input order), except
 * those with an idempotency key (see the header), and answers their positions, to be inserted again.
 */
async function withdrawAfter(
  users: UsersCollection,
  firstCollided: number,
  pending: number[],
  docs: UserDocument[],
  results: InsertResult[],
  tally: CreationTally,
): Promise<number[]> {
  const withdrawn = pending.filter((position, k) => {
    const result = results[position];
    return (
      position > firstCollided &&
      result !== undefined &&
      'created' in result &&
      docs[k].idempotencyKey === undefined
    );
  });
  if (withdrawn.length === 0) return [];
  countCommand(tally);
  const ids = withdrawn.map((position) => {
    const result = results[position] as { created: UserDocument };
    delete results[position];
    return result.created._id;
  });
  await users.collection.deleteMany({ _id: { $in: ids } }, users.options());
  return withdrawn;
}

/**
 * A transactional source's rounds (TRANSACTION): the documents still pending go into the next
 * group transaction (./transaction-groups.ts), which takes their ids with the `$inc` and commits
 * all or nothing. The documents refused on their email or idempotency key (all of them at once,
 * the group reads which are taken) fail alone and the others go again (a refused item consumes no
 * id, nothing is withdrawn); taken `_id`s are repaired and retried inside the group. Each round
 * settles at least one document, so the loop is bounded.
 */
async function insertInGroups(
  unsaved: UnsavedUser[],
  groups: TransactionGroups,
  tally: CreationTally,
  options?: InsertOptions,
): Promise<InsertReport> {
  const results: InsertResult[] = new Array(unsaved.length);
  const attempts: number[] = new Array(unsaved.length).fill(0);
  let duplicateKeyRetries = 0;
  let pending = unsaved.map((_, position) => position);

  while (pending.length > 0) {
    const inserting = pending;
    let round: MemberRound;
    try {
      round = await groups.round(
        inserting.map((position) => unsaved[position]),
        tally,
        options,
      );
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      for (const position of inserting) results[position] = { error: err };
      break;
    }
    for (const position of inserting) attempts[position] += round.attempts;
    duplicateKeyRetries += round.collisions * inserting.length;
    if (round.outcome === 'committed') {
      inserting.forEach((position, k) => {
        results[position] = { created: round.docs[k] };
      });
      break;
    }
    if (round.outcome === 'contention') {
      for (const position of inserting) {
        results[position] = { error: new IdContentionError(attempts[position]) };
      }
      break;
    }
    const refusedItems = new Set<number>();
    for (const refusal of round.refusals) {
      const item = inserting[refusal.position];
      results[item] = { duplicateOn: refusal.field };
      refusedItems.add(item);
    }
    pending = inserting.filter((position) => !refusedItems.has(position));
  }
  return { results, attempts, duplicateKeyRetries };
}
