/**
 * The two write paths shared by findAndModify and update, each one synchronous step:
 * updating a stored document (copy-on-write; the old and new images are both stable snapshots)
 * and upserting (the query's equality fields, then the update applied as an insert, including
 * $setOnInsert). Unique-index conflicts surface as E11000 and leave the store unchanged.
 */
import { Collection } from './collection';
import { equalityFields } from './matcher';
import { applyUpdate, upsertSeed } from './update';
import { Document } from './values';

export function updateDocument(
  collection: Collection,
  current: Document,
  update: unknown,
): Document {
  const next = applyUpdate(current, update);
  collection.replace(current, next);
  return next;
}

export function upsertDocument(
  collection: Collection,
  filter: Document | undefined,
  update: unknown,
): Document {
  const seed = upsertSeed(equalityFields(filter));
  return collection.insert(applyUpdate(seed, update, true));
}
