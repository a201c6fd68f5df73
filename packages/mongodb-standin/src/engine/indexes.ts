/**
 * Index definitions and unique-key bookkeeping. A unique index is a Map from the canonical key
 * string of the indexed values to the owning document's `_id` key, so a duplicate is found in
 * O(1) and reported in mongod's exact E11000 shape. A missing field indexes as null; a partial
 * index skips documents outside its filter. Non-unique indexes are kept only as definitions
 * (listIndexes shows them; queries scan). Unique keys over arrays (multikey) are refused.
 */
import { CommandError, ErrorCode, unsupported } from './errors';
import { compileFilter, Predicate } from './matcher';
import { getPath } from './paths';
import { Document, formatDocument, indexKeyOf, isPlainDocument } from './values';

export interface IndexSpec {
  name: string;
  key: Document;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
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

  /** Canonical key of `doc` in this index, or null when the index does not cover the document. */
  keyOf(doc: Document): string | null {
    if (this.filter && !this.filter(doc)) return null;
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
]);

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
  return spec;
}

export function sameSpec(a: IndexSpec, b: IndexSpec): boolean {
  return (
    indexKeyOf(a.key) === indexKeyOf(b.key) &&
    Boolean(a.unique) === Boolean(b.unique) &&
    Boolean(a.sparse) === Boolean(b.sparse) &&
    indexKeyOf(a.partialFilterExpression) === indexKeyOf(b.partialFilterExpression)
  );
}
