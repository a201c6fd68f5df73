/**
 * Index definitions and unique-key bookkeeping. A unique index is a Map from the canonical key
 * string of the indexed values to the owning document's `_id` key, so a duplicate is found in
 * O(1) and reported in mongod's exact E11000 shape. A missing field indexes as null; a partial
 * index skips documents outside its filter. Non-unique indexes are kept only as definitions
 * (listIndexes shows them; queries scan). Unique keys over arrays (multikey) are refused. A TTL
 * index (`expireAfterSeconds`, one field) is validated as mongod's createIndexes does; what it
 * deletes, and when: ttl.ts.
 */
import type { Double, Int32 } from 'bson';
import { CommandError, ErrorCode, unsupported } from './errors';
import { bsonTypeName, compileFilter, Predicate } from './matcher';
import { getPath } from './paths';
import {
  Document,
  formatDocument,
  indexKeyOf,
  isNumeric,
  isPlainDocument,
  numberOf,
} from './values';

export interface IndexSpec {
  name: string;
  key: Document;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
  /** a TTL index: its documents expire this long after the date in its field (ttl.ts); a BSON
   * number when read back from disk (expiryOf) */
  expireAfterSeconds?: number | Int32 | Double;
}

export class Index {
  readonly fields: string[];
  private readonly filter: Predicate | null;
  /** unique indexes only: canonical key → `_id` key of the document holding it */
  readonly owners = new Map<string, string>();

  constructor(
    readonly spec: IndexSpec,
    private readonly namespace: string,
  ) {
    this.fields = Object.keys(spec.key);
    this.filter = spec.partialFilterExpression ? compileFilter(spec.partialFilterExpression) : null;
  }

  get name(): string {
    return this.spec.name;
  }

  get unique(): boolean {
    return this.spec.unique === true || this.spec.name === '_id_';
  }

  /** Whether the index holds `doc` at all: a partial index only the documents its filter matches. */
  covers(doc: Document): boolean {
    return !this.filter || this.filter(doc);
  }

  /** Canonical key of `doc` in this index, or null when the index does not cover the document. */
  keyOf(doc: Document): string | null {
    if (!this.covers(doc)) return null;
    const values = this.fields.map((field) => getPath(doc, field));
    if (this.spec.sparse && values.every((value) => value === undefined)) return null;
    if (this.unique && values.some(Array.isArray)) {
      throw unsupported(`array values in the unique index ${this.spec.name} (multikey)`);
    }
    return values.length === 1 ? indexKeyOf(values[0]) : values.map(indexKeyOf).join('\u0000');
  }

  duplicateKeyError(doc: Document): CommandError {
    const keyValue: Document = {};
    for (const field of this.fields) keyValue[field] = getPath(doc, field) ?? null;
    return new CommandError(
      ErrorCode.DuplicateKey,
      `E11000 duplicate key error collection: ${this.namespace} index: ${this.spec.name} dup key: ${formatDocument(keyValue)}`,
      { keyPattern: this.spec.key, keyValue },
    );
  }

  describe(): Document {
    const { name, key, ...options } = this.spec;
    return { v: 2, key, name, ...options };
  }
}

const INDEX_OPTIONS = new Set([
  'name',
  'key',
  'unique',
  'sparse',
  'partialFilterExpression',
  'v',
  'background',
  'expireAfterSeconds',
]);

/** The largest `expireAfterSeconds` mongod takes on an index: a 32-bit integer. */
const MAX_EXPIRE_AFTER_SECONDS = 2 ** 31 - 1;

/** `expireAfterSeconds` as mongod's createIndexes checks it (CannotCreateIndex, 67, naming the spec). */
function expireAfterSecondsOf(raw: Document): number {
  const refuse = (why: string) =>
    new CommandError(ErrorCode.CannotCreateIndex, `${why}. Index spec: ${formatDocument(raw)}`);
  const value = raw.expireAfterSeconds;
  if (!isNumeric(value))
    throw refuse(
      `TTL index 'expireAfterSeconds' option must be numeric, but received a type of '${bsonTypeName(value)}'`,
    );
  const seconds = numberOf(value);
  if (Number.isNaN(seconds)) throw refuse("TTL index 'expireAfterSeconds' option must not be NaN");
  if (seconds < 0) throw refuse("TTL index 'expireAfterSeconds' option cannot be less than 0");
  if (Math.trunc(seconds) > MAX_EXPIRE_AFTER_SECONDS)
    throw refuse(
      "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number",
    );
  const fields = Object.keys(raw.key as Document);
  if (fields.length !== 1)
    throw refuse('TTL indexes are single-field indexes, compound indexes do not support TTL');
  if (fields[0] === '_id')
    throw new CommandError(
      ErrorCode.InvalidIndexSpecificationOption,
      "The field 'expireAfterSeconds' is not valid for an _id index specification.",
    );
  return Math.trunc(seconds);
}

/** Validates a createIndexes entry; refuses index kinds and options the stand-in does not implement. */
export function parseIndexSpec(raw: unknown): IndexSpec {
  if (!isPlainDocument(raw) || !isPlainDocument(raw.key) || typeof raw.name !== 'string') {
    throw new CommandError(
      ErrorCode.FailedToParse,
      'index specification must have a key document and a name',
    );
  }
  for (const option of Object.keys(raw)) {
    if (!INDEX_OPTIONS.has(option)) throw unsupported(`the index option '${option}'`);
  }
  for (const [field, direction] of Object.entries(raw.key)) {
    if (typeof direction === 'string') throw unsupported(`'${direction}' indexes (on ${field})`);
  }
  if (raw.partialFilterExpression !== undefined && !isPlainDocument(raw.partialFilterExpression)) {
    throw new CommandError(ErrorCode.FailedToParse, 'partialFilterExpression must be an object');
  }
  const spec: IndexSpec = { name: raw.name, key: raw.key };
  if (raw.unique === true) spec.unique = true;
  if (raw.sparse === true) spec.sparse = true;
  if (raw.partialFilterExpression)
    spec.partialFilterExpression = raw.partialFilterExpression as Document;
  if (raw.expireAfterSeconds !== undefined) spec.expireAfterSeconds = expireAfterSecondsOf(raw);
  return spec;
}

/**
 * A spec's expireAfterSeconds as a number: a spec read back from the journal or a snapshot holds
 * it as the BSON number it was written as (an Int32), one from createIndexes as a number.
 */
export function expiryOf(spec: IndexSpec): number | undefined {
  return spec.expireAfterSeconds === undefined ? undefined : numberOf(spec.expireAfterSeconds);
}

export function sameSpec(a: IndexSpec, b: IndexSpec): boolean {
  return (
    indexKeyOf(a.key) === indexKeyOf(b.key) &&
    Boolean(a.unique) === Boolean(b.unique) &&
    Boolean(a.sparse) === Boolean(b.sparse) &&
    indexKeyOf(a.partialFilterExpression) === indexKeyOf(b.partialFilterExpression) &&
    expiryOf(a) === expiryOf(b)
  );
}
