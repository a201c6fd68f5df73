/**
 * Importing users with the ids another system gave them (`importUsers`).
 *
 * Contract and invariants:
 * - Each input is stored with its own id, or refused alone: BAD_USER_INPUT (malformed, or an id
 *   twice in the batch: the later one), ID_TAKEN (another user holds the id), EMAIL_TAKEN. The
 *   unique `_id` and `email` indexes decide, in one unordered insert, so two imports or an import
 *   and a creation never store one id twice.
 * - Before the insert, the `userid` counter moves forward to the largest valid id of the batch
 *   (`$max`, never back), so every counter-fed strategy continues above the imported ids; an id
 *   the counter passed but the insert refused stays a hole that `gaps` lists (MISSING). A BLOCK
 *   block another process held before the import may still hold ids below it: the insert refuses
 *   any of them that the import took, and BLOCK drops that block (never a duplicate).
 * - Idempotent: an input whose id is stored with the same name and email (an import sent again)
 *   answers that user with `replayed: true`, and the counter's `$max` changes nothing the second
 *   time. Costs 2 commands per batch (the `$max`, the insert), plus one read per kind of refusal.
 */
import { Long } from 'bson';
import type { WriteOptions } from '../database/index';
import { beforeWrite } from '../database/index';
import { BadUserInputError, type DomainError } from '../errors';
import type { Sequences } from '../sequences/index';
import { newCreationTally, USER_ID_SEQUENCE } from '../strategies/index';
import { DuplicateEmailError, IdTakenError } from './errors';
import { insertUnordered } from './insert';
import { toUser, type User, type UserDocument, type UsersCollection } from './model';
import { parseUserId, validateCreateUserInput } from './validation';

/** A user as another system numbered it. */
export interface ImportUserInput {
  id: string;
  name: string;
  email?: string | null;
  createdAt?: Date | null;
}

export type ImportOutcome = { user: User; replayed: boolean } | { error: DomainError };

/** Stores `inputs` with their own ids (see the contract above); one outcome per input, in order. */
export async function importUsers(
  users: UsersCollection,
  sequences: Sequences,
  inputs: ImportUserInput[],
  options: WriteOptions = {},
): Promise<ImportOutcome[]> {
  const outcomes: Array<ImportOutcome | undefined> = new Array(inputs.length);
  const docs: UserDocument[] = [];
  const positions: number[] = [];
  const seen = new Set<number>();
  const importedAt = new Date();
  inputs.forEach((input, position) => {
    try {
      const doc = importedDocument(input, importedAt);
      const id = doc._id.toNumber();
      if (seen.has(id)) {
        throw new BadUserInputError(`id ${id} appears twice in this import.`, { field: 'id' });
      }
      seen.add(id);
      docs.push(doc);
      positions.push(position);
    } catch (err) {
      if (!(err instanceof BadUserInputError)) throw err;
      outcomes[position] = { error: err };
    }
  });
  if (docs.length > 0) {
    beforeWrite(options);
    const largest = Math.max(...docs.map((doc) => doc._id.toNumber()));
    await sequences.repairCounterDrift(USER_ID_SEQUENCE, largest, undefined, options);
    beforeWrite(options);
    const refused = await insertUnordered(users, docs, newCreationTally());
    const stored = await storedOf(users, docs, refused);
    docs.forEach((doc, k) => {
      const field = refused.get(k);
      const user = toUser(doc)!;
      if (field === undefined) {
        outcomes[positions[k]] = { user, replayed: false };
        return;
      }
      const existing = stored.get(doc._id.toNumber());
      const same =
        existing !== undefined && existing.name === user.name && existing.email === user.email;
      outcomes[positions[k]] = same
        ? { user: existing, replayed: true }
        : { error: field === 'email' ? new DuplicateEmailError() : new IdTakenError(user.id) };
    });
  }
  return outcomes as ImportOutcome[];
}

/** The document an input is stored as, or BAD_USER_INPUT naming its field. */
function importedDocument(input: ImportUserInput, importedAt: Date): UserDocument {
  const id = parseUserId(input.id);
  if (id === null) {
    throw new BadUserInputError(
      'id must be the decimal string of a whole number from 1 to 9007199254740991.',
      { field: 'id' },
    );
  }
  const { name, email } = validateCreateUserInput({ name: input.name, email: input.email });
  const createdAt = input.createdAt ?? importedAt;
  if (!(createdAt instanceof Date) || Number.isNaN(createdAt.getTime())) {
    throw new BadUserInputError('createdAt must be a date.', { field: 'createdAt' });
  }
  return {
    _id: Long.fromNumber(id),
    name,
    ...(email === undefined ? {} : { email }),
    createdWith: 'COUNTER',
    createdAt,
    importedAt,
  };
}

/** The stored users holding the ids of the refused documents, by id (one read). */
async function storedOf(
  users: UsersCollection,
  docs: UserDocument[],
  refused: Map<number, string>,
): Promise<Map<number, User>> {
  if (refused.size === 0) return new Map();
  const ids = [...refused.keys()].map((k) => docs[k]._id);
  const found = await users.collection.find({ _id: { $in: ids } }, users.options()).toArray();
  const byId = new Map<number, User>();
  for (const doc of found) {
    const user = toUser(doc);
    if (user !== null) byId.set(Number(user.id), user);
  }
  return byId;
}
