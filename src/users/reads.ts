/**
 * Every read of the `users` collection, each exactly one `find` command.
 *
 * Invariants: each function adds the commands it sent to the optional tally, and asks for at most
 * as many documents as it can use in the first batch (`limit` = `batchSize`), so no cursor stays
 * open and no `getMore` follows: the tally is exact. Input reaches filters only as values (`Long`s
 * and strings), never as keys.
 */
import { Long } from 'bson';
import type { Filter } from 'mongodb';
import { countCommand, type CommandTally } from '../database/index';
import { GAPS } from '../limits';
import { assertGapRequest, type GapPage, type GapRequest } from '../sequences/index';
import {
  fromStored,
  ISSUABLE_ID_RANGE,
  numericId,
  type UserDocument,
  type UsersCollection,
} from './model';
import { parseUserId } from './validation';

/**
 * The largest issuable `_id` stored (see `ISSUABLE_ID_RANGE`), 0 when there is none: the
 * optimistic loop's starting point and the base of drift. A fractional one (imported data) counts
 * as its whole part, so max + 1 is still above it.
 */
export async function maxUserId(users: UsersCollection, tally?: CommandTally): Promise<number> {
  countCommand(tally);
  const [top] = await users.collection
    .find({ _id: ISSUABLE_ID_RANGE }, users.options({ projection: { _id: 1 } }))
    .sort({ _id: -1 })
    .limit(1)
    .toArray();
  return top === undefined ? 0 : Math.floor(numericId(top._id));
}

/**
 * What a lookup of nothing answers: no command and nothing to wait for, already settled. Most
 * creations look up no idempotency key, no inviter and no lost race (three lookups of nothing
 * each), so they no longer pay two async calls and a Map for each (bench/results/0.4.md, "CPU levers
 * of 0.4"). Shared, hence read-only.
 */
const NO_USERS: Promise<ReadonlyMap<never, UserDocument>> = Promise.resolve(
  new Map<never, UserDocument>(),
);

/**
 * The stored users whose `field` is one of `values`, by `keyOf`: one `find`, none when `values`
 * is empty.
 */
function usersWhereIn<K>(
  users: UsersCollection,
  field: '_id' | 'idempotencyKey',
  values: Array<Long | string>,
  keyOf: (user: UserDocument) => K,
  tally?: CommandTally,
): Promise<ReadonlyMap<K, UserDocument>> {
  if (values.length === 0) return NO_USERS;
  countCommand(tally);
  const filter: Filter<UserDocument> = { [field]: { $in: values } };
  return users.collection
    .find(filter, users.options())
    .limit(values.length)
    .batchSize(values.length)
    .toArray()
    .then((docs) => new Map(docs.map(fromStored).map((user) => [keyOf(user), user])));
}

/** The stored users among `ids`, by id. */
export function usersByIds(
  users: UsersCollection,
  ids: readonly number[],
  tally?: CommandTally,
): Promise<ReadonlyMap<number, UserDocument>> {
  return usersWhereIn(
    users,
    '_id',
    ids.map((id) => Long.fromNumber(id)),
    (user) => user._id.toNumber(),
    tally,
  );
}

/** The stored users created under one of `keys`, by key. */
export function usersByIdempotencyKeys(
  users: UsersCollection,
  keys: readonly string[],
  tally?: CommandTally,
): Promise<ReadonlyMap<string, UserDocument>> {
  return usersWhereIn(
    users,
    'idempotencyKey',
    [...keys],
    (user) => user.idempotencyKey as string,
    tally,
  );
}

/** The user with this id (a decimal string); null when there is none or the id is not one. */
export async function findUserById(
  users: UsersCollection,
  id: string,
): Promise<UserDocument | null> {
  const value = parseUserId(id);
  if (value === null) return null;
  return (await usersByIds(users, [value])).get(value) ?? null;
}

/** The emails and idempotency keys of some documents that stored users already hold. */
export interface TakenValues {
  emails: ReadonlySet<string>;
  keys: ReadonlySet<string>;
}

const NOTHING_TAKEN: TakenValues = { emails: new Set(), keys: new Set() };

/**
 * Which emails and idempotency keys of `docs` stored users hold: one `find` (none when no document
 * has either), at most one stored user per value.
 */
export async function takenValues(
  users: UsersCollection,
  docs: ReadonlyArray<Pick<UserDocument, 'email' | 'idempotencyKey'>>,
  tally?: CommandTally,
): Promise<TakenValues> {
  const emails = [...new Set(docs.flatMap((doc) => (doc.email === undefined ? [] : [doc.email])))];
  const keys = [
    ...new Set(
      docs.flatMap((doc) => (doc.idempotencyKey === undefined ? [] : [doc.idempotencyKey])),
    ),
  ];
  if (emails.length + keys.length === 0) return NOTHING_TAKEN;
  countCommand(tally);
  const limit = emails.length + keys.length;
  const stored = await users.collection
    .find(
      { $or: [{ email: { $in: emails } }, { idempotencyKey: { $in: keys } }] },
      users.options({ projection: { _id: 0, email: 1, idempotencyKey: 1 } }),
    )
    .limit(limit)
    .batchSize(limit)
    .toArray();
  return {
    emails: new Set(stored.flatMap((doc) => (doc.email === undefined ? [] : [doc.email]))),
    keys: new Set(
      stored.flatMap((doc) => (doc.idempotencyKey === undefined ? [] : [doc.idempotencyKey])),
    ),
  };
}

/**
 * The ids below the largest stored one that no user holds (a failed insert, a crash between
 * taking an id and storing it, a BLOCK stopped without giving its ids back, a deletion), as runs
 * above `request.after`: one `find` of at most `GAPS.idsScanned` `_id`s (src/limits.ts), so a page may end
 * (`complete: false`) before it holds `request.first` runs; pass `scannedThrough` as `after`.
 * Ids issued but above every stored one are not holes yet: the next user may take them.
 */
export async function missingIds(users: UsersCollection, request: GapRequest): Promise<GapPage> {
  assertGapRequest(request);
  const after = Math.max(0, request.after ?? 0);
  const docs = await users.collection
    .find(
      { _id: { ...ISSUABLE_ID_RANGE, $gt: Long.fromNumber(after) } },
      users.options({ projection: { _id: 1 } }),
    )
    .sort({ _id: 1 })
    .limit(GAPS.idsScanned)
    .batchSize(GAPS.idsScanned)
    .toArray();
  const runs: GapPage['runs'] = [];
  let expected = after + 1;
  for (const doc of docs) {
    const id = Math.floor(numericId(doc._id));
    if (id < expected) continue;
    if (id > expected) {
      if (runs.length === request.first)
        return { runs, scannedThrough: expected - 1, complete: false };
      runs.push({ first: expected, last: id - 1, count: id - expected, kind: 'MISSING' });
    }
    expected = id + 1;
  }
  return { runs, scannedThrough: expected - 1, complete: docs.length < GAPS.idsScanned };
}
