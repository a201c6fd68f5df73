/**
 * Dotted field paths ("a.b.c") over stored documents. Reading follows MongoDB: numeric segments
 * index arrays, and a non-numeric segment applied to an array reaches into each element (that
 * fan-out is what lets `{ 'tags.name': x }` match any element). Writing creates missing
 * intermediate documents and refuses to traverse scalars, as mongod does. Only a document's own
 * fields are read and written: `constructor` or `__proto__` is a field name like any other.
 */
import { CommandError, ErrorCode } from './errors';
import { Document, isPlainDocument, ownField, setOwnField } from './values';

/** The single value at a path, without array fan-out (undefined when absent). */
export function getPath(doc: unknown, path: string): unknown {
  let current: unknown = doc;
  for (const segment of path.split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (isPlainDocument(current)) current = ownField(current, segment);
    else return undefined;
  }
  return current;
}

/**
 * Every value a query predicate on `path` must consider, with array fan-out. An array found at
 * the end of the path is returned itself; the matcher also tries its elements.
 */
export function valuesAtPath(doc: unknown, segments: readonly string[], from = 0): unknown[] {
  if (from === segments.length) return [doc];
  const segment = segments[from];
  if (Array.isArray(doc)) {
    const results: unknown[] = [];
    if (/^\d+$/.test(segment))
      results.push(...valuesAtPath(doc[Number(segment)], segments, from + 1));
    for (const element of doc) {
      if (isPlainDocument(element)) results.push(...valuesAtPath(element, segments, from));
    }
    return results;
  }
  if (isPlainDocument(doc)) return valuesAtPath(ownField(doc, segment), segments, from + 1);
  return [undefined];
}

function traversalError(path: string, segment: string, found: unknown): CommandError {
  return new CommandError(
    ErrorCode.PathNotViable,
    `Cannot create field '${segment}' in element {${path.split('.')[0]}: ${JSON.stringify(found)}}`,
  );
}

/** Parent container and last segment of a path, creating intermediate documents when asked. */
function parentOf(
  doc: Document,
  path: string,
  create: boolean,
): { parent: Document | unknown[]; key: string } | null {
  const segments = path.split('.');
  let current: Document | unknown[] = doc;
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i];
    let next: unknown = Array.isArray(current)
      ? current[Number(segment)]
      : ownField(current, segment);
    if (next === undefined || next === null) {
      if (!create) return null;
      next = {};
      if (Array.isArray(current)) current[Number(segment)] = next;
      else setOwnField(current, segment, next);
    }
    if (!isPlainDocument(next) && !Array.isArray(next)) {
      if (!create) return null;
      throw traversalError(path, segments[i + 1], next);
    }
    current = next;
  }
  return { parent: current, key: segments[segments.length - 1] };
}

export function setPath(doc: Document, path: string, value: unknown): void {
  const target = parentOf(doc, path, true)!;
  if (Array.isArray(target.parent)) target.parent[Number(target.key)] = value;
  else setOwnField(target.parent, target.key, value);
}

export function unsetPath(doc: Document, path: string): void {
  const target = parentOf(doc, path, false);
  if (!target) return;
  if (Array.isArray(target.parent)) target.parent[Number(target.key)] = null;
  else delete target.parent[target.key];
}
