/**
 * The shape of a stored user and of the input that creates one.
 *
 * Invariants: `_id` and `invitedById` are Int64 (bson `Long`) in storage, never doubles, so ids
 * above 2^31 and up to 2^53 - 1 keep their exact value and their type for every other client of
 * the collection. The collection is read with `promoteLongs: false`; `asLong` also accepts the
 * int32 or double ids an import may have written, so readers always get a `Long`.
 */
import { Long } from 'bson';
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

export function asLong(value: Long | number): Long {
  return typeof value === 'number' ? Long.fromNumber(value) : value;
}

/** The stored document with its numeric fields as `Long`, whatever integer type wrote them. */
export function fromStored(doc: UserDocument): UserDocument {
  const user = { ...doc, _id: asLong(doc._id) };
  if (doc.invitedById !== undefined) user.invitedById = asLong(doc.invitedById);
  return user;
}
