/**
 * One unordered insert of user documents, reporting per document which unique index refused it.
 *
 * Why unordered: a batch is one `insert` command, and a document refused for its `_id` or email
 * must not stop the others. Why only duplicate keys are per document: they are the one refusal the
 * caller can act on (take another id, report the email, replay the idempotent request); anything
 * else (network, timeout, write concern not satisfied) fails the whole call, with the driver's own
 * error so the GraphQL layer can map it (e.g. to SERVICE_UNAVAILABLE). A single document goes
 * with `insertOne`: the same `insert` command, without the driver's bulk-write machinery
 * (`BulkWriteResult`, batching), which a lone creation measurably paid for in CPU.
 */
import { MongoBulkWriteError, type ClientSession } from 'mongodb';
import {
  countCommand,
  duplicateKeyFields,
  isDuplicateKeyError,
  type WriteOptions,
} from '../database/index';
import type { DomainError } from '../errors';
import type { CreationTally } from '../strategies/index';
import type { UserDocument, UsersCollection } from './model';

/** A user to insert, before it has an id. */
export type UnsavedUser = Omit<UserDocument, '_id'>;

/** What became of one document to insert: stored, refused on a unique value, or failed. */
export type InsertResult =
  { created: UserDocument } | { duplicateOn: 'email' | 'idempotencyKey' } | { error: DomainError };

/** A creation's deadline, and who hears the documents right before their insert is sent. */
export type InsertOptions = WriteOptions & { beforeInsert?: (docs: UserDocument[]) => void };

/** The unique indexes of `users`: `_id`, and the two of `ensureUserIndexes`. */
export type UniqueField = '_id' | 'email' | 'idempotencyKey';
const UNIQUE_FIELDS: readonly UniqueField[] = ['_id', 'email', 'idempotencyKey'];

/**
 * The unique field an E11000 is about. One that names no index at all (a fail point, an old
 * server) is read as `_id`: retrying with another id is bounded and cannot store a duplicate,
 * whereas blaming the email would refuse valid input. Any other error: undefined.
 */
export function duplicatedField(error: unknown): UniqueField | undefined {
  if (!isDuplicateKeyError(error)) return undefined;
  if (duplicateKeyFields(error) === null) return '_id';
  return UNIQUE_FIELDS.find((field) => isDuplicateKeyError(error, field));
}

/** The position in `docs` of each document refused as a duplicate, with the field it duplicated. */
export async function insertUnordered(
  users: UsersCollection,
  docs: UserDocument[],
  tally: CreationTally,
): Promise<Map<number, UniqueField>> {
  countCommand(tally);
  if (docs.length === 1) {
    try {
      await users.collection.insertOne(docs[0], users.options());
      return new Map();
    } catch (err) {
      const field = duplicatedField(err);
      if (field === undefined) throw err;
      return new Map([[0, field]]);
    }
  }
  try {
    await users.collection.insertMany(docs, users.options({ ordered: false }));
    return new Map();
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const writeErrors = [err.writeErrors].flat();
    if (writeErrors.length === 0) {
      // The command failed as a whole, so nothing was written. A driver error (network, timeout)
      // the bulk API wrapped is handed on as the original.
      const cause = err.errorResponse instanceof Error ? err.errorResponse : err;
      if (duplicatedField(cause) !== '_id') throw cause;
      return new Map(docs.map((_, position) => [position, '_id']));
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

/**
 * The insert of a transaction (TRANSACTION): the first refusal aborts the whole transaction (the
 * server then fails the command, mongod and the stand-in alike), so at most one document is
 * reported, by its position in `docs`. A duplicate whose document cannot be told apart is handed
 * on as the error it is, failing the call rather than blaming the wrong item.
 */
export async function insertInSession(
  users: UsersCollection,
  docs: UserDocument[],
  session: ClientSession,
  tally: CreationTally,
): Promise<{ position: number; field: UniqueField } | null> {
  countCommand(tally);
  try {
    if (docs.length === 1) await users.collection.insertOne(docs[0], users.options({ session }));
    else await users.collection.insertMany(docs, users.options({ session, ordered: true }));
    return null;
  } catch (err) {
    const writeError = err instanceof MongoBulkWriteError ? [err.writeErrors].flat()[0] : undefined;
    const cause: unknown = writeError?.err ?? err;
    const field = duplicatedField(cause) ?? duplicatedField(err);
    if (field === undefined) throw err;
    const position = writeError?.index ?? refusedPosition(docs, field, cause);
    if (position === undefined) throw err;
    return { position, field };
  }
}

/** The document a duplicate-key error without a write index names by its `keyValue`. */
function refusedPosition(
  docs: UserDocument[],
  field: UniqueField,
  error: unknown,
): number | undefined {
  if (docs.length === 1) return 0;
  const keyValue = (error as { keyValue?: Record<string, unknown> }).keyValue?.[field];
  if (keyValue === undefined) return undefined;
  const position = docs.findIndex((doc) => String(doc[field]) === String(keyValue));
  return position === -1 ? undefined : position;
}
