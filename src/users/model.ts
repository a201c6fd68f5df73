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
import type { Filter, FilterOperators } from 'mongodb';
import type { BoundedCollection } from '../database/index';
import { ID_STRATEGIES, isIdStrategy, type IdStrategy } from '../strategies/index';

export const USERS_COLLECTION = 'users';

/** The `users` collection with the bound of every command (src/database/command-options.ts). */
export type UsersCollection = BoundedCollection<UserDocument>;

export interface UserDocument {
  _id: Long;
  name: string;
  email?: string;
  invitedById?: Long;
  createdWith: IdStrategy;
  createdAt: Date;
  /** Stored by `importUsers` with the id another system gave it (./import.ts). */
  importedAt?: Date;
  idempotencyKey?: string;
  inputHash?: string;
}

/**
 * A user as every caller outside this component sees it: plain values only (ids as the decimal
 * strings clients send back), nothing of MongoDB or bson.
 */
export interface User {
  id: string;
  name: string;
  email: string | null;
  /** Kept as given at creation, also when that user is deleted later. */
  invitedById: string | null;
  createdWith: IdStrategy;
  createdAt: Date;
  /** When `importUsers` stored it with the id it already had; null for an id issued here. */
  importedAt: Date | null;
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

/** Stored users `toUser` can read: an issuable `_id`, a name, a known strategy, a creation date. */
export const READABLE_USER: Filter<UserDocument> = {
  _id: ISSUABLE_ID_RANGE,
  name: { $type: 'string' },
  createdWith: { $in: [...ID_STRATEGIES] },
  createdAt: { $type: 'date' },
};

/** A positive safe integer id as its decimal string, or null. */
function idString(value: unknown): string | null {
  const id = numericId(value);
  return Number.isSafeInteger(id) && id >= 1 ? String(id) : null;
}

/**
 * The plain user of a stored document, or null for one this service cannot read as a user (written
 * by someone else with a foreign `_id`, or without a name, strategy or creation date).
 */
export function toUser(doc: UserDocument): User | null {
  const id = idString(doc._id);
  if (id === null || typeof doc.name !== 'string') return null;
  if (!isIdStrategy(doc.createdWith) || !(doc.createdAt instanceof Date)) return null;
  return {
    id,
    name: doc.name,
    email: typeof doc.email === 'string' ? doc.email : null,
    invitedById: doc.invitedById === undefined ? null : idString(doc.invitedById),
    createdWith: doc.createdWith,
    createdAt: doc.createdAt,
    importedAt: doc.importedAt instanceof Date ? doc.importedAt : null,
  };
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
