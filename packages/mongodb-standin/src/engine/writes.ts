/**
 * The two write paths shared by findAndModify and update, each one synchronous step:
 * updating a stored document (copy-on-write; the old and new images are both stable snapshots;
 * an update that changes no byte writes nothing, as in mongod, so it is neither journaled nor
 * seen by change streams) and upserting (the query's equality fields, then the update applied as an insert, including
 * $setOnInsert). Unique-index conflicts surface as E11000 and leave the store unchanged.
 * A result above mongod's size or nesting bound (document-limits.ts) is refused before it is
 * stored. Like mongod, an upsert whose query uses `$expr` is refused when the command is parsed
 * (QueryFeatureNotAllowed, 224), whether or not a document matches.
 */
import type { CollectionView } from './views';
import { CommandError, ErrorCode } from './errors';
import { assertStorable } from './document-limits';
import { equalityFields } from './matcher';
import { DocumentWrite } from './changes';
import {
  applyUpdate,
  applyUpdateWithStyle,
  UpdateContext,
  UpdateStyle,
  upsertSeed,
} from './update';
import { describeOperatorUpdate, describePipelineUpdate } from './update-description';
import { Document, sameBson } from './values';

export function updateDocument(
  collection: CollectionView,
  current: Document,
  update: unknown,
  context: UpdateContext = {},
): Document {
  const { doc: next, style } = applyUpdateWithStyle(current, update, context);
  assertStorable(next, 'update');
  if (sameBson(next, current)) return current;
  collection.replace(current, next, describeWrite(current, next, style));
  return next;
}

/** The kind of write an update was, as the change history reports it. */
function describeWrite(before: Document, after: Document, style: UpdateStyle): DocumentWrite {
  if (style.kind === 'replacement') return { event: 'replace' };
  const updateDescription =
    style.kind === 'operators'
      ? describeOperatorUpdate(before, after, style.applied)
      : describePipelineUpdate(before, after);
  return updateDescription ? { event: 'update', updateDescription } : { event: 'replace' };
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
  const doc = applyUpdate(seed, update, { ...context, inserting: true });
  assertStorable(doc, 'update');
  return collection.insert(doc);
}
