/**
 * The unified format's matching rules: root documents may carry extra fields, nested ones may
 * not; numbers match across BSON numeric types; the special operators `$$exists`, `$$type`,
 * `$$unsetOrMatches`, `$$sessionLsid`, `$$matchesEntity`, `$$matchesHexBytes` and `$$lte` apply
 * where they appear, and so do `$$matchAsDocument` (a JSON string parsed and matched as a nested
 * document: no extra fields) and `$$matchAsRoot` (a nested document matched as a root one, extra
 * fields allowed).
 */
import { BSON, Document } from 'mongodb';
import { Entities } from './entities';
import { Mismatch, RunnerGap } from './mismatch';

const NUMERIC = (value: unknown) =>
  typeof value === 'number' ||
  typeof value === 'bigint' ||
  value instanceof BSON.Int32 ||
  value instanceof BSON.Long ||
  value instanceof BSON.Double;

function asNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof BSON.Long) return value.toNumber();
  return (value as { valueOf(): number }).valueOf();
}

const TYPE_TESTS: Record<string, (v: unknown) => boolean> = {
  double: (v) => typeof v === 'number' || v instanceof BSON.Double,
  int: (v) =>
    (typeof v === 'number' && Number.isInteger(v)) ||
    typeof v === 'bigint' ||
    v instanceof BSON.Int32,
  long: (v) =>
    v instanceof BSON.Long ||
    typeof v === 'bigint' ||
    (typeof v === 'number' && Number.isInteger(v)),
  string: (v) => typeof v === 'string',
  object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  array: Array.isArray,
  objectId: (v) => v instanceof BSON.ObjectId,
  bool: (v) => typeof v === 'boolean',
  date: (v) => v instanceof Date,
  null: (v) => v === null,
  binData: (v) => v instanceof BSON.Binary,
  timestamp: (v) => v instanceof BSON.Timestamp,
  decimal: (v) => v instanceof BSON.Decimal128,
  regex: (v) => v instanceof RegExp || v instanceof BSON.BSONRegExp,
  minKey: (v) => v instanceof BSON.MinKey,
  maxKey: (v) => v instanceof BSON.MaxKey,
  javascript: (v) => v instanceof BSON.Code && v.scope == null,
  javascriptWithScope: (v) => v instanceof BSON.Code && v.scope != null,
};
// The format's alias for every numeric type.
TYPE_TESTS.number = (v) =>
  TYPE_TESTS.int(v) || TYPE_TESTS.long(v) || TYPE_TESTS.double(v) || TYPE_TESTS.decimal(v);

const show = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** A document to match field by field: not an array, and not a BSON value (ObjectId, Date, ...). */
function isDocument(value: unknown): value is Document {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !('_bsontype' in value) &&
    !(value instanceof Date) &&
    !(value instanceof Uint8Array)
  );
}

function sameValue(expected: unknown, actual: unknown): boolean {
  if (NUMERIC(expected) && NUMERIC(actual)) return asNumber(expected) === asNumber(actual);
  return (
    expected === actual ||
    (expected !== null &&
      actual !== null &&
      typeof expected === 'object' &&
      typeof actual === 'object' &&
      Buffer.from(BSON.serialize({ v: expected })).equals(BSON.serialize({ v: actual })))
  );
}

export class Matcher {
  constructor(private readonly entities: Entities) {}

  match(expected: unknown, actual: unknown, where: string, root: boolean): void {
    if (actual instanceof Map) actual = Object.fromEntries(actual);
    if (isDocument(expected)) {
      const keys = Object.keys(expected);
      if (keys.length === 1 && keys[0].startsWith('$$'))
        return this.special(keys[0], expected[keys[0]], actual, where, root);
      return this.document(expected, actual, where, root);
    }
    if (Array.isArray(expected)) return this.array(expected, actual, where, root);
    if (!sameValue(expected, actual))
      throw new Mismatch(`${where}: expected ${show(expected)}, got ${show(actual)}`);
  }

  private document(expected: Document, actual: unknown, where: string, root: boolean): void {
    if (!isDocument(actual))
      throw new Mismatch(`${where}: expected a document, got ${show(actual)}`);
    for (const key of Object.keys(expected))
      this.match(expected[key], actual[key], `${where}.${key}`, false);
    if (root) return;
    for (const key of Object.keys(actual))
      if (!(key in expected) && actual[key] !== undefined)
        throw new Mismatch(`${where}: unexpected field ${key}`);
  }

  private array(expected: unknown[], actual: unknown, where: string, root: boolean): void {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      throw new Mismatch(`${where}: expected ${show(expected)}, got ${show(actual)}`);
    // The documents of a root array (find results, outcome) are root documents themselves.
    expected.forEach((item, i) => this.match(item, actual[i], `${where}[${i}]`, root));
  }

  private special(op: string, operand: unknown, actual: unknown, where: string, root: boolean) {
    switch (op) {
      case '$$exists':
        if ((actual !== undefined) !== operand)
          throw new Mismatch(`${where}: expected ${operand ? 'present' : 'absent'}`);
        return;
      case '$$type': {
        const types = (Array.isArray(operand) ? operand : [operand]) as string[];
        if (!types.some((type) => TYPE_TESTS[type]?.(actual)))
          throw new Mismatch(`${where}: expected type ${types} got ${show(actual)}`);
        return;
      }
      case '$$unsetOrMatches':
        if (actual !== undefined) this.match(operand, actual, where, root);
        return;
      case '$$sessionLsid': {
        const lsid = this.entities.lsids.get(operand as string);
        if (!lsid) throw new Mismatch(`${where}: no session ${operand}`);
        return this.match(lsid, actual, where, false);
      }
      case '$$matchesEntity':
        return this.match(this.entities.value(operand as string), actual, where, root);
      case '$$matchesHexBytes':
        if (!(actual instanceof Uint8Array) || Buffer.from(actual).toString('hex') !== operand)
          throw new Mismatch(`${where}: expected bytes ${operand as string}, got ${show(actual)}`);
        return;
      case '$$matchAsDocument': {
        if (typeof actual !== 'string')
          throw new Mismatch(`${where}: expected a JSON string, got ${show(actual)}`);
        const parsed = BSON.EJSON.parse(actual, { relaxed: false }) as unknown;
        return this.match(operand, parsed, where, false);
      }
      case '$$matchAsRoot':
        return this.match(operand, actual, where, true);
      case '$$lte':
        if (!NUMERIC(actual) || asNumber(actual) > asNumber(operand))
          throw new Mismatch(`${where}: expected at most ${show(operand)}, got ${show(actual)}`);
        return;
      default:
        throw new RunnerGap(`${where}: runner does not implement ${op}`);
    }
  }
}
