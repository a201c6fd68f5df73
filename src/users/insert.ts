/**
 * One unordered insert of user documents, reporting per document which unique index refused it.
 *
 * Why unordered: a batch is one `insert` command, and a document refused for its `_id` or email
 * must not stop the others. Why only duplicate keys are per document: they are the one refusal the
 * caller can act on (take another id, report the email, replay the idempotent request); anything
 * else (network, timeout, write concern not satisfied) fails the whole call, with the driver's own
 * error so the GraphQL layer can map it (e.g. to SERVICE_UNAVAILABLE).
 */
import { MongoBulkWriteError, type Collection } from 'mongodb';
import { isDuplicateKeyError } from '../database/index.js';
import { countCommand, type CreationCost } from './cost.js';
import type { UserDocument } from './model.js';

/** The unique indexes of `users`: `_id`, and the two of `ensureUserIndexes`. */
export type UniqueField = '_id' | 'email' | 'idempotencyKey';
const UNIQUE_FIELDS: readonly UniqueField[] = ['_id', 'email', 'idempotencyKey'];

function duplicatedField(writeError: unknown): UniqueField | undefined {
  return UNIQUE_FIELDS.find((field) => isDuplicateKeyError(writeError, field));
}

/** The position in `docs` of each document refused as a duplicate, with the field it duplicated. */
export async function insertUnordered(
  users: Collection<UserDocument>,
  docs: UserDocument[],
  cost: CreationCost,
): Promise<Map<number, UniqueField>> {
  countCommand(cost);
  try {
    await users.insertMany(docs, { ordered: false });
    return new Map();
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const writeErrors = [err.writeErrors].flat();
    if (writeErrors.length === 0) {
      // A driver error (network, timeout) the bulk API wrapped: hand on the original.
      throw err.errorResponse instanceof Error ? err.errorResponse : err;
    }
    if (err.result?.getWriteConcernError()) throw err;
    const refused = new Map<number, UniqueField>();
    for (const writeError of writeErrors) {
      const field = duplicatedField(writeError.err);
      if (field === undefined) throw err;
      refused.set(writeError.index, field);
    }
    return refused;
  }
}
