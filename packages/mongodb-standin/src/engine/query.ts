/**
 * Running a filter (+ sort, skip, limit) over one collection, choosing the cheapest way to find
 * candidates: an `_id` equality or `$in` (without regexes) goes to the `_id` map, an equality on
 * all fields of a unique index goes to that index, a sort on `_id` walks the ordered `_id`s and
 * stops at the limit; anything else scans in natural order. The plan never changes which documents match:
 * every candidate is still checked against the full filter. executeQuery also says which way
 * it went and what it examined, which is all explain reports.
 */
import type { CollectionView } from './views';
import { Variables } from './expressions';
import { badValue } from './errors';
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
  /** the command's `let` and `$$NOW`, for `$expr` */
  variables?: Variables;
}

function isPlainValue(value: unknown): boolean {
  return !isPlainDocument(value) || !Object.keys(value).some((key) => key.startsWith('$'));
}

/** Documents an index lookup found, and what it took: the plan explain reports. */
interface Candidates {
  docs: Document[];
  access: AccessPath;
  keysExamined: number;
}

function idCandidates(collection: CollectionView, filter: Document): Candidates | null {
  const condition = filter._id;
  if (condition === undefined) return null;
  const id =
    isPlainDocument(condition) && Object.keys(condition).length === 1 && '$eq' in condition
      ? condition.$eq
      : condition;
  if (isRegexValue(id)) return null;
  if (isPlainValue(id) && !Array.isArray(id)) {
    const doc = collection.byId(id);
    const idOnly = Object.keys(filter).length === 1;
    return {
      docs: doc ? [doc] : [],
      access: idOnly ? { kind: 'IDHACK' } : { kind: 'IXSCAN', index: collection.indexes[0] },
      keysExamined: doc ? 1 : 0,
    };
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
    docs.sort((a, b) => compareValues(a._id, b._id));
    return {
      docs,
      access: { kind: 'IXSCAN', index: collection.indexes[0] },
      keysExamined: id.$in.length,
    };
  }
  return null;
}

/** A unique index whose every field the filter pins, and which surely covers matching documents. */
function uniqueCandidates(collection: CollectionView, filter: Document): Candidates | null {
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
    return { docs: doc ? [doc] : [], access: { kind: 'IXSCAN', index }, keysExamined: doc ? 1 : 0 };
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

/**
 * How candidates were found: by `_id` alone, through an index, by reading every document, or
 * not at all (EOF: the collection does not exist).
 */
export type AccessPath =
  | { kind: 'IDHACK' }
  | { kind: 'IXSCAN'; index: Index; direction?: 1 | -1 }
  | { kind: 'COLLSCAN' }
  | { kind: 'EOF' };

/** What running a query did, as explain's executionStats reports it. */
export interface QueryExecution {
  docs: Document[];
  access: AccessPath;
  keysExamined: number;
  docsExamined: number;
  /** documents that passed the filter, before skip and limit */
  matched: number;
  /** whether the results were sorted in memory (no index gave the order) */
  sortedInMemory: boolean;
}

/**
 * Refuses a `hint` naming no index of the collection, as mongod does (a missing collection
 * ignores it). The stand-in then plans as it always does: a hint never changes which documents
 * match, only the plan mongod would pick.
 */
export function assertHintUsable(collection: CollectionView | undefined, hint: unknown): void {
  if (hint === undefined || hint === null || !collection) return;
  if (isPlainDocument(hint) && Object.keys(hint).length === 0) return;
  if (isPlainDocument(hint) && '$natural' in hint) return;
  const exists =
    typeof hint === 'string'
      ? collection.indexes.some((index) => index.name === hint)
      : isPlainDocument(hint) &&
        collection.indexes.some((index) => indexKeyOf(index.spec.key) === indexKeyOf(hint));
  if (!exists)
    throw badValue(
      'error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index',
    );
}

/** The execution of a query on a collection that does not exist. */
export function emptyExecution(): QueryExecution {
  return {
    docs: [],
    access: { kind: 'EOF' },
    keysExamined: 0,
    docsExamined: 0,
    matched: 0,
    sortedInMemory: false,
  };
}

export function executeQuery(
  collection: CollectionView,
  filter: Document | undefined | null,
  options: QueryOptions = {},
): QueryExecution {
  const matches = compileFilter(filter, options.variables);
  const skip = options.skip ?? 0;
  const limit = options.limit ?? 0;
  const sortKeys = options.sort ? parseSort(options.sort) : [];
  const candidates =
    (filter && (idCandidates(collection, filter) ?? uniqueCandidates(collection, filter))) ?? null;

  if (candidates === null && sortKeys.length === 1 && sortKeys[0][0] === '_id') {
    const direction = sortKeys[0][1];
    const docs: Document[] = [];
    let examined = 0;
    let matched = 0;
    for (const doc of collection.inIdOrder(direction)) {
      examined++;
      if (!matches(doc)) continue;
      matched++;
      if (matched <= skip) continue;
      docs.push(doc);
      if (limit > 0 && docs.length >= limit) break;
    }
    return {
      docs,
      access: { kind: 'IXSCAN', index: collection.indexes[0], direction },
      keysExamined: examined,
      docsExamined: examined,
      matched,
      sortedInMemory: false,
    };
  }

  let docs: Document[] = [];
  let examined = 0;
  for (const doc of candidates?.docs ?? collection.all()) {
    examined++;
    if (matches(doc)) docs.push(doc);
  }
  const matched = docs.length;
  if (sortKeys.length > 0) docs.sort(comparatorFor(options.sort!));
  if (skip > 0 || limit > 0) docs = docs.slice(skip, limit > 0 ? skip + limit : undefined);
  return {
    docs,
    access: candidates?.access ?? { kind: 'COLLSCAN' },
    keysExamined: candidates?.keysExamined ?? 0,
    docsExamined: examined,
    matched,
    sortedInMemory: sortKeys.length > 0,
  };
}

export function runQuery(
  collection: CollectionView,
  filter: Document | undefined | null,
  options: QueryOptions = {},
): Document[] {
  return executeQuery(collection, filter, options).docs;
}
