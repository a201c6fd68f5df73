/**
 * The shape of a stored user and of the input that creates one.
 *
 * Invariants: `_id` and `invitedById` are Int64 (bson `Long`) in storage, never doubles, so ids
 * above 2^31 and up to 2^53 - 1 keep their exact value and their type for every other client of
 * the collection. The collection is read with `promoteLongs: false`; `asLong` also accepts the
 * int32 or double ids an import may have written, so readers always get a `Long`.
 * Documents written by someone else are read defensively: only `_id`s in `ISSUABLE_ID_RANGE` are
 * ever read as users or followed by a strategy, so a string, NaN or negative `_id` never blocks
 * creation and never becomes an id.
 */
import { Decimal128, Long } from 'bson';
import type { FilterOperators } from 'mongodb';
import type { IdStrategy } from '../stats/index.js';

export const USERS_COLLECTION = 'users';

export interface UserDocument {
  _id: Long;
  name: string;
  email?: string;
  invitedById?: Long;
  createdWith: IdStrategy;
  createdAt: Date;
  idempotencyKey?: string;
  inputHash?: string;
}

export interface CreateUserInput {
  name: string;
  email?: string | null;
  invitedById?: string | null;
  idempotencyKey?: string | null;
}

/**
 * The `_id`s this service reads and follows: numbers (any BSON numeric type) from 1 to 2^53 - 1.
 * Range operators only match values of the same type bracket, so strings, dates or ObjectIds
 * never match, and the lower bound keeps out NaN, which MongoDB orders below every number.
 */
export const ISSUABLE_ID_RANGE: FilterOperators<Long> = {
  $gte: Long.fromNumber(1),
  $lte: Long.fromNumber(Number.MAX_SAFE_INTEGER),
};

/** The value of a numeric `_id` as a JS number (NaN for anything else). */
export function numericId(value: unknown): number {
  if (value instanceof Long) return value.toNumber();
  if (value instanceof Decimal128) return Number(value.toString());
  return typeof value === 'number' ? value : NaN;
}

export function asLong(value: Long | number): Long {
  return typeof value === 'number' ? Long.fromNumber(value) : value;
}

/** The stored document with its numeric fields as `Long`, whatever integer type wrote them. */
export function fromStored(doc: UserDocument): UserDocument {
  const user = { ...doc, _id: asLong(doc._id) };
  if (doc.invitedById !== undefined) user.invitedById = asLong(doc.invitedById);
  return user;
}
