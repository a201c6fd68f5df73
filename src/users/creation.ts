/**
 * Creating users, one or a batch: validation, idempotent replays, the inviter check, the insert
 * under the chosen strategy, and what it cost.
 *
 * A single `createUser` is a batch of one, so both paths share every rule. Order matters:
 * 1. Validate every item; a refused item never reaches the database and never consumes an id.
 * 2. One `find` for the idempotency keys and one for the inviters, whatever the batch size
 *    (skipped when no item has one). A stored key replays its user (same input) or is refused.
 * 3. Inside the batch, a later item repeating an earlier item's key follows that item's outcome,
 *    and a later item repeating an earlier item's email fails without taking an id.
 * 4. Insert the rest with fresh ids (see `fresh-ids.ts`). An insert refused for its email or key
 *    gives its id back where that is safe (see src/strategies), so sequential requests keep
 *    consecutive ids; under concurrency, or inside a batch, such an id may remain a gap.
 * 5. An insert refused on the idempotency key (or on the email, which the same input also
 *    repeats) lost a race to a concurrent request with that key: its stored user is read once and
 *    returned as a replay, so concurrent first requests with one key create exactly one user.
 */
import { annotateActiveSpan } from '../telemetry/index';
import { Long } from 'bson';
import type { WriteOptions } from '../database/index';
import { DomainError } from '../errors';
import type { StrategyStats } from '../stats/index';
import { newCreationTally, type CreationTally, type IdStrategy } from '../strategies/index';
import {
  DuplicateEmailError,
  IdContentionError,
  IdempotencyKeyReusedError,
  UniqueIndexesUnavailableError,
  UnknownInviterError,
} from './errors';
import {
  insertOneWithFreshId,
  insertWithFreshIds,
  type InsertReport,
  type Numbering,
} from './fresh-ids';
import type { InsertResult, UnsavedUser } from './insert';
import { ownedKey, type KeyOwner } from './key-owners';
import type { Tracked, UserIndexes } from './indexes';
import type { CreateUserInput, UserDocument, UsersCollection } from './model';
import { usersByIdempotencyKeys, usersByIds } from './reads';
import { inputHash, validateCreateUserInput, type NormalizedUserInput } from './validation';

/** What a creation is told beside its input: its deadline, and who owns its idempotency keys. */
export interface CreationOptions extends WriteOptions {
  /** Unset: the unscoped keys of in-process callers (./key-owners.ts); the API always sets it. */
  keyOwner?: KeyOwner;
}

export type CreationOutcome =
  { user: UserDocument; attempts: number; replayed: boolean } | { error: DomainError };

export interface CreationDeps {
  users: UsersCollection;
  stats: StrategyStats<IdStrategy>;
  /** How each strategy numbers users in this process (./fresh-ids.ts). */
  numbering: Record<IdStrategy, Numbering>;
  indexes: UserIndexes;
}

interface Candidate {
  index: number;
  input: NormalizedUserInput;
  /** `inputHash(input)` once asked for (`hashOf`); only items with an idempotency key ask. */
  hash?: string;
}

/** The candidate's input fingerprint, computed on first use: most creations carry no key. */
function hashOf(candidate: Candidate): string {
  return (candidate.hash ??= inputHash(candidate.input));
}

/** The valid items, each key owned by `owner` (./key-owners.ts); the others fail in `outcomes`. */
function validated(
  inputs: CreateUserInput[],
  outcomes: CreationOutcome[],
  owner: KeyOwner | undefined,
): Candidate[] {
  const candidates: Candidate[] = [];
  inputs.forEach((raw, index) => {
    try {
      const candidate: Candidate = { index, input: validateCreateUserInput(raw) };
      const key = candidate.input.idempotencyKey;
      if (key !== undefined) {
        candidate.input.idempotencyKey = ownedKey(key, owner, () => hashOf(candidate));
      }
      candidates.push(candidate);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      outcomes[index] = { error: err };
    }
  });
  return candidates;
}

function distinct<T>(values: Array<T | undefined>): T[] {
  return [...new Set(values.filter((value): value is T => value !== undefined))];
}

/** The stored user of an idempotency key, for a request whose input hashes to `hash`. */
function replayOf(stored: UserDocument, hash: string): CreationOutcome {
  return stored.inputHash === hash
    ? { user: stored, attempts: 0, replayed: true }
    : { error: new IdempotencyKeyReusedError() };
}

function unsavedUser(candidate: Candidate, strategy: IdStrategy, createdAt: Date): UnsavedUser {
  const { name, email, invitedById, idempotencyKey } = candidate.input;
  const user: UnsavedUser = { name, createdWith: strategy, createdAt };
  if (email !== undefined) user.email = email;
  if (invitedById !== undefined) user.invitedById = Long.fromNumber(invitedById);
  if (idempotencyKey !== undefined) {
    user.idempotencyKey = idempotencyKey;
    user.inputHash = hashOf(candidate);
  }
  return user;
}

interface BatchPlan {
  toInsert: Candidate[];
  /** Items repeating the idempotency key of an earlier item (its owner) of the same batch. */
  followers: Candidate[];
  keyOwners: Map<string, Candidate>;
}

/**
 * Steps 2 and 3: settles replays and refusals, and tells which items need an insert. An item with
 * an idempotency key or an inviter needs the stored users read first: only then is the plan a
 * promise.
 */
function planBatch(
  deps: CreationDeps,
  candidates: Candidate[],
  outcomes: CreationOutcome[],
  tally: CreationTally,
): BatchPlan | Promise<BatchPlan> {
  const keys = distinct(candidates.map((c) => c.input.idempotencyKey));
  const inviterIds = distinct(candidates.map((c) => c.input.invitedById));
  if (keys.length === 0 && inviterIds.length === 0) {
    // Nothing to read: planned in this turn, without a wait (most creations).
    return planFrom(candidates, outcomes, NOTHING_STORED, NOTHING_STORED);
  }
  return Promise.all([
    usersByIdempotencyKeys(deps.users, keys, tally),
    usersByIds(deps.users, inviterIds, tally),
  ]).then(([storedByKey, inviters]) => planFrom(candidates, outcomes, storedByKey, inviters));
}

/** What a creation without idempotency keys or inviters knows of stored users: none. */
const NOTHING_STORED: ReadonlyMap<never, UserDocument> = new Map<never, UserDocument>();

function planFrom(
  candidates: Candidate[],
  outcomes: CreationOutcome[],
  storedByKey: ReadonlyMap<string, UserDocument>,
  inviters: ReadonlyMap<number, UserDocument>,
): BatchPlan {
  const plan: BatchPlan = { toInsert: [], followers: [], keyOwners: new Map() };
  const emailsInBatch = new Set<string>();
  for (const candidate of candidates) {
    const { idempotencyKey: key, invitedById, email } = candidate.input;
    const stored = key === undefined ? undefined : storedByKey.get(key);
    if (stored !== undefined) outcomes[candidate.index] = replayOf(stored, hashOf(candidate));
    else if (key !== undefined && plan.keyOwners.has(key)) plan.followers.push(candidate);
    else if (invitedById !== undefined && !inviters.has(invitedById)) {
      outcomes[candidate.index] = { error: new UnknownInviterError() };
    } else if (email !== undefined && emailsInBatch.has(email)) {
      outcomes[candidate.index] = { error: new DuplicateEmailError() };
    } else {
      if (email !== undefined) emailsInBatch.add(email);
      if (key !== undefined) plan.keyOwners.set(key, candidate);
      plan.toInsert.push(candidate);
    }
  }
  return plan;
}

/**
 * Step 5: the outcome of each inserted item; lost idempotency races become replays. An insert
 * refused on an idempotency key needs that key's stored user read first: only then is there a
 * promise.
 */
function settleInserts(
  deps: CreationDeps,
  toInsert: Candidate[],
  report: InsertReport,
  outcomes: CreationOutcome[],
  tally: CreationTally,
): void | Promise<void> {
  const raceKeys = toInsert
    .filter((c, position) => 'duplicateOn' in report.results[position] && c.input.idempotencyKey)
    .map((c) => c.input.idempotencyKey as string);
  // No lost race (most creations): settled in this turn, without a wait.
  if (raceKeys.length === 0) return settleFrom(toInsert, report, outcomes, NOTHING_STORED);
  return usersByIdempotencyKeys(deps.users, raceKeys, tally).then((raceWinners) =>
    settleFrom(toInsert, report, outcomes, raceWinners),
  );
}

function settleFrom(
  toInsert: Candidate[],
  report: InsertReport,
  outcomes: CreationOutcome[],
  raceWinners: ReadonlyMap<string, UserDocument>,
): void {
  toInsert.forEach((candidate, position) => {
    const result = report.results[position];
    const key = candidate.input.idempotencyKey;
    const winner = key === undefined ? undefined : raceWinners.get(key);
    outcomes[candidate.index] = insertOutcome(candidate, result, report.attempts[position], winner);
  });
}

/** An inserted item's outcome; `winner` is the stored user of its key when it lost a race. */
function insertOutcome(
  candidate: Candidate,
  result: InsertResult,
  attempts: number,
  winner: UserDocument | undefined,
): CreationOutcome {
  if ('created' in result) return { user: result.created, attempts, replayed: false };
  if ('error' in result) return result;
  if (winner !== undefined) return replayOf(winner, hashOf(candidate));
  if (result.duplicateOn === 'email') return { error: new DuplicateEmailError() };
  // The key's user was there at insert time and is gone now: sending again will settle it.
  return { error: new IdContentionError(attempts) };
}

/** Step 3's followers: the outcome of the item that owns their key, as a replay. */
function settleFollowers(plan: BatchPlan, outcomes: CreationOutcome[]): void {
  for (const follower of plan.followers) {
    const owner = plan.keyOwners.get(follower.input.idempotencyKey as string) as Candidate;
    const ownerOutcome = outcomes[owner.index];
    let outcome: CreationOutcome;
    if (hashOf(follower) !== hashOf(owner)) outcome = { error: new IdempotencyKeyReusedError() };
    else if ('error' in ownerOutcome) outcome = ownerOutcome;
    else outcome = { user: ownerOutcome.user, attempts: 0, replayed: true };
    outcomes[follower.index] = outcome;
  }
}

/** Whether a stored user depends on the unique indexes (it has an email or a key). */
function reliesOnIndexes(user: UserDocument): boolean {
  return user.email !== undefined || user.idempotencyKey !== undefined;
}

/** Rounds of re-creating items whose users a rebuild of the indexes deleted (see indexes.ts). */
const MAX_CREATION_ROUNDS = 3;

/**
 * One outcome per input, in input order (see the header for the steps). Calls that attempted an
 * insert are recorded in the stats, failed ones too: their attempts and commands are a real cost.
 */
export async function createUsersWith(
  deps: CreationDeps,
  inputs: CreateUserInput[],
  strategy: IdStrategy,
  options?: CreationOptions,
): Promise<CreationOutcome[]> {
  const started = performance.now();
  const call = newCall(deps, strategy, options);
  const outcomes = await createConfirmed(call, inputs, 1);
  recordCall(call, started);
  return outcomes;
}

/**
 * One item's outcome, as `createUsersWith` answers a batch of one. An item that names no email,
 * idempotency key or inviter (most `createUser` calls) takes step 4 alone: steps 2, 3 and 5 and
 * the confirmation of the unique indexes have nothing to do for it (nothing to read, no key to
 * follow or to lose a race for, no index its user relies on), so it skips their layers: as a batch
 * of one it cost about 6% more CPU per user at concurrency 64 (bench/results/0.4.md, "CPU levers of
 * 0.4, part 3"). The rules it does meet are the same functions (validation, the document, the insert
 * under fresh ids, the settling and the stats); test/users/plain-creation.test.ts holds both paths
 * to the same answers, stored users and stats.
 */
export async function createUserWith(
  deps: CreationDeps,
  input: CreateUserInput,
  strategy: IdStrategy,
  options?: CreationOptions,
): Promise<CreationOutcome> {
  if (input.email != null || input.idempotencyKey != null || input.invitedById != null) {
    const [outcome] = await createUsersWith(deps, [input], strategy, options);
    return outcome;
  }
  const started = performance.now();
  const outcomes: CreationOutcome[] = new Array(1);
  const candidates = validated([input], outcomes, options?.keyOwner);
  if (candidates.length === 0) return outcomes[0];
  const [candidate] = candidates;
  const call = newCall(deps, strategy, options);
  const one = await insertOneWithFreshId(
    deps.users,
    unsavedUser(candidate, strategy, new Date()),
    deps.numbering[strategy],
    call.tally,
    { signal: options?.signal },
  );
  countInserts(call, {
    users: 'created' in one.result ? 1 : 0,
    attempts: one.attempts,
    duplicateKeyRetries: one.duplicateKeyRetries,
  });
  recordCall(call, started);
  return insertOutcome(candidate, one.result, one.attempts, undefined);
}

function newCall(
  deps: CreationDeps,
  strategy: IdStrategy,
  options: CreationOptions | undefined,
): CreationCall {
  return {
    deps,
    strategy,
    options,
    tally: newCreationTally(),
    totals: { users: 0, attempts: 0, duplicateKeyRetries: 0 },
  };
}

/** What the stats hear of a call that attempted an insert; nothing of one that did not. */
function recordCall({ deps, strategy, tally, totals }: CreationCall, started: number): void {
  if (totals.attempts === 0) return;
  // On the request's trace too (src/telemetry), where the instrumentations cannot see them.
  annotateActiveSpan({
    'sequential_ids.strategy': strategy,
    'sequential_ids.ids_taken': totals.attempts,
    'sequential_ids.users_created': totals.users,
    'sequential_ids.duplicate_key_retries': totals.duplicateKeyRetries,
    'sequential_ids.transaction_retries': tally.transactionRetries ?? 0,
    'sequential_ids.write_conflicts': tally.writeConflicts ?? 0,
    'sequential_ids.db_commands': tally.commands,
  });
  deps.stats.record({
    strategy,
    ...totals,
    counterRepairs: tally.counterRepairs,
    transactionRetries: tally.transactionRetries ?? 0,
    writeConflicts: tally.writeConflicts ?? 0,
    commands: tally.commands,
    latencyMs: performance.now() - started,
  });
}

/** Adds a round's inserts (users created, insert attempts, `_id` retries) to the call's totals. */
function countInserts({ totals }: CreationCall, round: CreationCall['totals']): void {
  totals.users += round.users;
  totals.attempts += round.attempts;
  totals.duplicateKeyRetries += round.duplicateKeyRetries;
}

/** One `createUsersWith` call: what each of its rounds shares, and what the stats hear of it. */
interface CreationCall {
  deps: CreationDeps;
  strategy: IdStrategy;
  options: CreationOptions | undefined;
  tally: CreationTally;
  /** Summed over the call's rounds. */
  totals: { users: number; attempts: number; duplicateKeyRetries: number };
}

/**
 * Creates, then confirms that the unique indexes were there for every user that relies on them
 * (`UserIndexes.confirm`); items whose users a rebuild deleted are created again.
 */
async function createConfirmed(
  call: CreationCall,
  inputs: CreateUserInput[],
  round: number,
): Promise<CreationOutcome[]> {
  const { deps } = call;
  let tracked: Tracked | null = null;
  const outcomes = await createOnce(call, inputs, (ids) => {
    tracked = deps.indexes.track(tracked, ids);
  });
  const relying = outcomes.flatMap((outcome) =>
    'user' in outcome && reliesOnIndexes(outcome.user) ? [outcome] : [],
  );
  const mine: Tracked = tracked ?? deps.indexes.track(null, []);
  if (relying.length === 0) {
    // Nothing to acknowledge relies on the indexes (a refusal on email or key even proves them).
    deps.indexes.untrack(mine);
    return outcomes;
  }
  const replayedIds = relying.flatMap((outcome) =>
    outcome.replayed ? [outcome.user._id.toNumber()] : [],
  );
  try {
    const { healed, gone } = await deps.indexes.confirm(mine, replayedIds, call.tally);
    if (!healed) return await withoutUnconfirmed(deps, outcomes, mine);
    const redo = outcomes.flatMap((outcome, index) =>
      'user' in outcome && gone.has(outcome.user._id.toNumber()) ? [index] : [],
    );
    if (redo.length === 0) return outcomes;
    if (round >= MAX_CREATION_ROUNDS) return await withoutUnconfirmed(deps, outcomes, mine);
    const again = await createConfirmed(
      call,
      redo.map((index) => inputs[index]),
      round + 1,
    );
    redo.forEach((index, k) => {
      outcomes[index] = again[k];
    });
    return outcomes;
  } finally {
    deps.indexes.untrack(mine);
  }
}

/**
 * The call's answer when its users cannot be confirmed: every user that relies on the indexes is
 * deleted again (it was never acknowledged) and its item fails as retryable.
 */
async function withoutUnconfirmed(
  deps: CreationDeps,
  outcomes: CreationOutcome[],
  tracked: Tracked,
): Promise<CreationOutcome[]> {
  await deps.users.collection.deleteMany(
    { _id: { $in: tracked.ids.map((id) => Long.fromNumber(id)) } },
    deps.users.options(),
  );
  return outcomes.map((outcome) =>
    'user' in outcome && reliesOnIndexes(outcome.user)
      ? { error: new UniqueIndexesUnavailableError() }
      : outcome,
  );
}

/** Steps 1 to 5 once; `track` hears the ids of users that rely on the indexes before their insert. */
async function createOnce(
  call: CreationCall,
  inputs: CreateUserInput[],
  track: (ids: number[]) => void,
): Promise<CreationOutcome[]> {
  const { deps, strategy, options, tally } = call;
  const outcomes: CreationOutcome[] = new Array(inputs.length);
  const candidates = validated(inputs, outcomes, options?.keyOwner);
  // Awaited only when it reads: an `await` of a settled value still costs a turn of microtasks.
  const planned = planBatch(deps, candidates, outcomes, tally);
  const plan = planned instanceof Promise ? await planned : planned;

  const createdAt = new Date();
  const report = await insertWithFreshIds(
    deps.users,
    plan.toInsert.map((candidate) => unsavedUser(candidate, strategy, createdAt)),
    deps.numbering[strategy],
    tally,
    {
      signal: options?.signal,
      beforeInsert: (docs) => {
        const relying = docs.filter(reliesOnIndexes).map((doc) => doc._id.toNumber());
        if (relying.length > 0) track(relying);
      },
    },
  );
  const settled = settleInserts(deps, plan.toInsert, report, outcomes, tally);
  if (settled instanceof Promise) await settled;
  settleFollowers(plan, outcomes);
  countInserts(call, {
    users: report.results.filter((result) => 'created' in result).length,
    attempts: report.attempts.reduce((sum, n) => sum + n, 0),
    duplicateKeyRetries: report.duplicateKeyRetries,
  });
  return outcomes;
}
