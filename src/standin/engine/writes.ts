/**
 * The two write paths shared by findAndModify and update, each one synchronous step:
 * updating a stored document (copy-on-write; the old and new images are both stable snapshots)
 * and upserting (the query's equality fields, then the update applied as an insert, including
 * $setOnInsert). Unique-index conflicts surface as E11000 and leave the store unchanged.
 * Like mongod, an upsert whose query uses `$expr` is refused when the command is parsed
 * (QueryFeatureNotAllowed, 224), whether or not a document matches.
 */
import type { CollectionView } from './views';
import { CommandError, ErrorCode } from './errors';
import { equalityFields } from './matcher';
import { applyUpdate, UpdateContext, upsertSeed } from './update';
import { Document } from './values';

export function updateDocument(
  collection: CollectionView,
  current: Document,
  update: unknown,
  context: UpdateContext = {},
): Document {
  const next = applyUpdate(current, update, context);
  collection.replace(current, next);
  return next;
}

/** Called for every upserting statement before it runs: mongod refuses `$expr` in its query. */
export function assertUpsertQueryAllowed(filter: Document | undefined): void {
  if (filter && '$expr' in filter) {
    throw new CommandError(
      ErrorCode.QueryFeatureNotAllowed,
      '$expr is not allowed in the query predicate for an upsert',
    );
  }
}

export function upsertDocument(
  collection: CollectionView,
  filter: Document | undefined,
  update: unknown,
  context: UpdateContext = {},
): Document {
  const seed = upsertSeed(equalityFields(filter));
  return collection.insert(applyUpdate(seed, update, { ...context, inserting: true }));
}
