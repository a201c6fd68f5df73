/**
 * mongod's bounds on one document, checked before a write changes anything, so a document
 * mongod would refuse is never stored, journaled or seen by another client:
 *
 * - Size: a stored document holds at most 16 MB of BSON (BSONObjMaxUserSize). An insert above it
 *   is BadValue ("object to insert too large"); an update whose result is above it is
 *   BSONObjectTooLarge (10334; mongod before 7.0 answered 17419). A document above 16 MB + 16 KB
 *   (BSONObjMaxInternalSize) never reaches a command: the server refuses the message holding it
 *   with 10334 (wire/messages.ts).
 * - Nesting: at most 180 levels (mongod's maxBSONDepth, 200, less the 20 it keeps for the
 *   oplog and replies); an empty document or array adds no level. Deeper is Overflow (15).
 *   (MongoDB's manual says 100; the server enforces 180, and a document mongod stores must be
 *   stored here too.)
 */
import { BSON } from 'bson';
import { CommandError, ErrorCode } from './errors';
import { Document, isPlainDocument } from './values';

/** BSONObjMaxUserSize: the largest document mongod stores. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** BSONDepth::getMaxDepthForUserStorage() at mongod's default maxBSONDepth. */
export const MAX_STORED_DEPTH = 180;

/** Whether `value`, a document at nesting level `level` (the top is 1), goes deeper than the bound. */
function tooDeep(value: Document | unknown[], level: number): boolean {
  for (const field of Array.isArray(value) ? value : Object.values(value)) {
    const nested = Array.isArray(field) || isPlainDocument(field);
    if (!nested) continue;
    const empty = Array.isArray(field) ? field.length === 0 : Object.keys(field).length === 0;
    if (empty) continue;
    if (level === MAX_STORED_DEPTH || tooDeep(field, level + 1)) return true;
  }
  return false;
}

const REFUSALS = {
  insert: {
    tooLarge: (size: number) =>
      new CommandError(
        ErrorCode.BadValue,
        `object to insert too large. size in bytes: ${size}, max size: ${MAX_DOCUMENT_BYTES}`,
      ),
    tooDeep: `cannot insert document because it exceeds ${MAX_STORED_DEPTH} levels of nesting`,
  },
  update: {
    tooLarge: () =>
      new CommandError(
        ErrorCode.BSONObjectTooLarge,
        `Resulting document after update is larger than ${MAX_DOCUMENT_BYTES}`,
      ),
    tooDeep: `Document exceeds maximum nesting depth of ${MAX_STORED_DEPTH}`,
  },
};

/** Refuses a document an insert (an upsert's too) or the result of an update may not store. */
export function assertStorable(doc: Document, write: keyof typeof REFUSALS): void {
  const size = BSON.calculateObjectSize(doc);
  if (size > MAX_DOCUMENT_BYTES) throw REFUSALS[write].tooLarge(size);
  if (tooDeep(doc, 1)) throw new CommandError(ErrorCode.Overflow, REFUSALS[write].tooDeep);
}
