/**
 * Running a filter (+ sort, skip, limit) over one collection, choosing the cheapest way to find
 * candidates: an `_id` equality or `$in` (without regexes) goes to the `_id` map, an equality on
 * all fields of a unique index goes to that index, a sort on `_id` walks the ordered `_id`s and stops at the
 * limit; anything else scans in natural order. The plan never changes which documents match:
 * every candidate is still checked against the full filter.
 */
import { Collection } from './collection';
import { Index } from './indexes';
import { compileFilter, equalityFields } from './matcher';
import { isRegexValue } from './regex';
import { comparatorFor, parseSort } from './sort';
import { compareValues, Document, indexKeyOf, isPlainDocument } from './values';

export interface QueryOptions {
  sort?: Document | null;
  skip?: number;
  /** 0 or absent: no limit */
  limit?: number;
}

function isPlainValue(value: unknown): boolean {
  return !isPlainDocument(value) || !Object.keys(value).some((key) => key.startsWith('$'));
}

function idCandidates(collection: Collection, filter: Document): Document[] | null {
  const condition = filter._id;
  if (condition === undefined) return null;
  const id =
    isPlainDocument(condition) && Object.keys(condition).length === 1 && '$eq' in condition
      ? condition.$eq
      : condition;
  if (isRegexValue(id)) return null;
  if (isPlainValue(id) && !Array.isArray(id)) {
    const doc = collection.byId(id);
    return doc ? [doc] : [];
  }
  if (
    isPlainDocument(id) &&
    Object.keys(id).length === 1 &&
    Array.isArray(id.$in) &&
    !id.$in.some(isRegexValue)
  ) {
    const seen = new Set<string>();
    const docs: Document[] = [];
    for (const value of id.$in) {
      const doc = Array.isArray(value) ? undefined : collection.byId(value);
      const key = doc && indexKeyOf(doc._id);
      if (doc && !seen.has(key!)) {
        seen.add(key!);
        docs.push(doc);
      }
    }
    // mongod answers an `_id: {$in}` from the _id index, so unsorted results come in _id order.
    return docs.sort((a, b) => compareValues(a._id, b._id));
  }
  return null;
}

/** A unique index whose every field the filter pins, and which surely covers matching documents. */
function uniqueCandidates(collection: Collection, filter: Document): Document[] | null {
  const equalities = equalityFields(filter);
  if (equalities.size === 0) return null;
  for (const index of collection.indexes) {
    if (!index.unique || index.name === '_id_' || index.spec.sparse) continue;
    if (
      !index.fields.every((field) => equalities.has(field) && isPlainValue(equalities.get(field)))
    )
      continue;
    const probe = probeDocument(index, equalities);
    if (probe === null) continue;
    const key = index.keyOf(probe);
    if (key === null) continue;
    const doc = collection.uniqueOwner(index, key);
    return doc ? [doc] : [];
  }
  return null;
}

/** A document holding only the pinned values; usable when the partial filter reads only those. */
function probeDocument(index: Index, equalities: Map<string, unknown>): Document | null {
  const filterFields = Object.keys(index.spec.partialFilterExpression ?? {});
  if (!filterFields.every((field) => index.fields.includes(field))) return null;
  const probe: Document = {};
  for (const field of index.fields) {
    if (field.includes('.') || Array.isArray(equalities.get(field))) return null;
    probe[field] = equalities.get(field);
  }
  return probe;
}

export function runQuery(
  collection: Collection,
  filter: Document | undefined | null,
  options: QueryOptions = {},
): Document[] {
  const matches = compileFilter(filter);
  const skip = options.skip ?? 0;
  const limit = options.limit ?? 0;
  const sortKeys = options.sort ? parseSort(options.sort) : [];
  const candidates =
    (filter && (idCandidates(collection, filter) ?? uniqueCandidates(collection, filter))) ?? null;

  if (candidates === null && sortKeys.length === 1 && sortKeys[0][0] === '_id') {
    const results: Document[] = [];
    let skipped = 0;
    for (const doc of collection.inIdOrder(sortKeys[0][1])) {
      if (!matches(doc)) continue;
      if (skipped < skip) {
        skipped++;
        continue;
      }
      results.push(doc);
      if (limit > 0 && results.length >= limit) break;
    }
    return results;
  }

  const source = candidates ?? collection.all();
  let results: Document[] = [];
  for (const doc of source) if (matches(doc)) results.push(doc);
  if (sortKeys.length > 0) results.sort(comparatorFor(options.sort!));
  if (skip > 0 || limit > 0) results = results.slice(skip, limit > 0 ? skip + limit : undefined);
  return results;
}
