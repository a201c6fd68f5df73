/**
 * An update event's `updateDescription` as mongod 7 derives it from its oplog entry (a "$v: 2"
 * delta), so a change stream reports the same fields for the same update:
 *
 * - Operator updates log each path an operator applied: a path that existed is an updated field
 *   (its new value), a path that did not exists from its first missing component on (that
 *   component's whole new value), an `$unset` of an existing field a removed field (of an array
 *   element: the element set to null, an updated field). Writes that leave a value as it was
 *   (binary-equal) log nothing.
 * - Pipeline updates are diffed document against document: removed fields; fields kept in
 *   order and changed are compared recursively (objects field by field, arrays index by index,
 *   a shorter array reported in `truncatedArrays`); from the first new or reordered field on,
 *   each field is rewritten whole (a delta can only append). When the delta would be larger
 *   than the new document, mongod logs the whole document instead and the stream reports a
 *   `replace`: `describePipelineUpdate` answers null then.
 */
import { calculateObjectSize } from 'bson';
import type { UpdateDescription } from './changes';
import { getPath } from './paths';
import type { AppliedPath } from './update';
import { Document, isPlainDocument, sameBson, valuesEqual } from './values';

function sameValue(a: unknown, b: unknown): boolean {
  return valuesEqual(a, b) && sameBson({ v: a }, { v: b });
}

function emptyDescription(): UpdateDescription {
  return { updatedFields: {}, removedFields: [], truncatedArrays: [] };
}

export function describeOperatorUpdate(
  before: Document,
  after: Document,
  applied: readonly AppliedPath[],
): UpdateDescription {
  const description = emptyDescription();
  const sorted = [...applied].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const { path, removed } of sorted) {
    const segments = path.split('.');
    const previous = getPath(before, path);
    if (removed) {
      if (previous === undefined) continue;
      const parent = getPath(before, segments.slice(0, -1).join('.'));
      if (segments.length > 1 && Array.isArray(parent)) {
        if (previous !== null) description.updatedFields[path] = null;
      } else description.removedFields.push(path);
      continue;
    }
    if (previous !== undefined) {
      const next = getPath(after, path);
      if (!sameValue(previous, next)) description.updatedFields[path] = next;
      continue;
    }
    let created = 1;
    while (getPath(before, segments.slice(0, created).join('.')) !== undefined) created++;
    const prefix = segments.slice(0, created).join('.');
    description.updatedFields[prefix] = getPath(after, prefix);
  }
  return description;
}

/**
 * The delta mongod would log, shaped as its "$v: 2" diff (`d` deleted, `u` updated, `i`
 * inserted, `s<field>` nested, arrays `a: true` with `l` a new length and `u<index>`), built
 * beside the description only to measure its size against the new document.
 */
type Delta = Document;

function diffArrays(
  before: unknown[],
  after: unknown[],
  path: string,
  into: UpdateDescription,
): Delta {
  const delta: Delta = { a: true };
  if (after.length < before.length) {
    into.truncatedArrays.push({ field: path, newSize: after.length });
    delta.l = after.length;
  }
  for (let i = 0; i < after.length; i++) {
    const field = `${path}.${i}`;
    if (i >= before.length) {
      into.updatedFields[field] = after[i];
      delta[`u${i}`] = after[i];
    } else {
      const nested = diffValues(before[i], after[i], field, into);
      if (nested === UPDATED) delta[`u${i}`] = after[i];
      else if (nested) delta[`s${i}`] = nested;
    }
  }
  return delta;
}

const UPDATED = Symbol('updated');

/** A nested delta, UPDATED when the value is rewritten whole, null when it did not change. */
function diffValues(
  before: unknown,
  after: unknown,
  path: string,
  into: UpdateDescription,
): Delta | typeof UPDATED | null {
  if (isPlainDocument(before) && isPlainDocument(after)) {
    const delta = diffDocuments(before, after, path, into);
    return Object.keys(delta).length > 0 ? delta : null;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const delta = diffArrays(before, after, path, into);
    return Object.keys(delta).length > 1 ? delta : null;
  }
  if (sameValue(before, after)) return null;
  into.updatedFields[path] = after;
  return UPDATED;
}

function diffDocuments(
  before: Document,
  after: Document,
  prefix: string,
  into: UpdateDescription,
): Delta {
  const at = (key: string) => (prefix ? `${prefix}.${key}` : key);
  const delta: Delta = {};
  const section = (name: string): Document => (delta[name] ??= {}) as Document;
  const beforeKeys = Object.keys(before);
  const positions = new Map(beforeKeys.map((key, i) => [key, i]));
  for (const key of beforeKeys) {
    if (Object.hasOwn(after, key)) continue;
    into.removedFields.push(at(key));
    section('d')[key] = false;
  }
  let inPlace = true;
  let lastPosition = -1;
  for (const key of Object.keys(after)) {
    const position = positions.get(key);
    if (inPlace && position !== undefined && position > lastPosition) {
      lastPosition = position;
      const nested = diffValues(before[key], after[key], at(key), into);
      if (nested === UPDATED) section('u')[key] = after[key];
      else if (nested) delta[`s${key}`] = nested;
    } else {
      inPlace = false;
      into.updatedFields[at(key)] = after[key];
      section('i')[key] = after[key];
    }
  }
  return delta;
}

/** bytes mongod allows for the delta entry's own fields (kSizeOfDeltaOplogEntryMetadata) */
const DELTA_METADATA_BYTES = 15;

export function describePipelineUpdate(
  before: Document,
  after: Document,
): UpdateDescription | null {
  const description = emptyDescription();
  const delta = diffDocuments(before, after, '', description);
  if (calculateObjectSize(delta) > calculateObjectSize(after) - DELTA_METADATA_BYTES) return null;
  return description;
}
