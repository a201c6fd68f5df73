/**
 * BSON values as MongoDB orders and compares them. Numbers keep their BSON wrapper types
 * (Int32, Double, Long) in storage; this module is the one place that looks through those
 * wrappers. Invariants:
 * - compareValues follows MongoDB's cross-type order (MinKey < null < numbers < strings <
 *   objects < arrays < binData < ObjectId < bool < date < timestamp < regex < MaxKey), and
 *   numbers compare by value whatever their BSON type.
 * - indexKeyOf(a) === indexKeyOf(b) exactly when compareValues(a, b) === 0, so a Map keyed by it
 *   behaves like a unique index (1, Long(1) and 1.0 collide as they do in mongod; null and a
 *   missing field collide too).
 */
import {
  Binary,
  BSON,
  BSONRegExp,
  BSONSymbol,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from 'bson';
import { RegexValue, regexParts } from './regex';

export type Document = Record<string, unknown>;

export function isPlainDocument(value: unknown): value is Document {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A document's own field, or undefined: names every object inherits (`constructor`, `toString`)
 * are plain field names to MongoDB, absent unless stored.
 */
export function ownField(doc: Document, key: string): unknown {
  return Object.hasOwn(doc, key) ? doc[key] : undefined;
}

/** Stores a field as the document's own data; `__proto__` too, never the object's prototype. */
export function setOwnField(doc: Document, key: string, value: unknown): void {
  Object.defineProperty(doc, key, { value, writable: true, enumerable: true, configurable: true });
}

/** `_id` first, as mongod stores it. */
export function withIdFirst(doc: Document): Document {
  if (Object.keys(doc)[0] === '_id' || !('_id' in doc)) return doc;
  const { _id, ...rest } = doc;
  return { _id, ...rest };
}

export function isNumeric(value: unknown): boolean {
  return (
    typeof value === 'number' ||
    value instanceof Int32 ||
    value instanceof Double ||
    value instanceof Long ||
    value instanceof Decimal128
  );
}

/** Numeric value as a JS number (Long beyond 2^53 loses precision; exact paths use compareNumbers). */
export function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value instanceof Int32 || value instanceof Double) return value.value;
  if (value instanceof Long) return value.toNumber();
  if (value instanceof Decimal128) return Number(value.toString());
  return NaN;
}

function compareNumbers(a: unknown, b: unknown): number {
  if (a instanceof Long && b instanceof Long) return a.compare(b);
  const x = numberOf(a);
  const y = numberOf(b);
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
  if (Number.isNaN(y)) return 1;
  if (x < y) return -1;
  if (x > y) return 1;
  // Equal as doubles: a Long beyond 2^53 may still differ from its rounded double.
  if (a instanceof Long || b instanceof Long) {
    const big = (v: unknown) =>
      v instanceof Long
        ? BigInt(v.toString())
        : Number.isInteger(numberOf(v))
          ? BigInt(numberOf(v))
          : null;
    const p = big(a);
    const q = big(b);
    if (p !== null && q !== null) return p < q ? -1 : p > q ? 1 : 0;
  }
  return 0;
}

/** MongoDB's canonical type rank, used first when comparing values of different types. */
export function typeRank(value: unknown): number {
  if (value === undefined || value === null) return 2;
  if (value instanceof MinKey) return 1;
  if (value instanceof MaxKey) return 100;
  if (isNumeric(value)) return 3;
  if (typeof value === 'string' || value instanceof BSONSymbol) return 4;
  if (Array.isArray(value)) return 6;
  if (value instanceof Binary) return 7;
  if (value instanceof ObjectId) return 8;
  if (typeof value === 'boolean') return 9;
  if (value instanceof Date) return 10;
  if (value instanceof Timestamp) return 11;
  if (value instanceof BSONRegExp || value instanceof RegExp) return 12;
  if (isPlainDocument(value)) return 5;
  return 13;
}

function stringOf(value: unknown): string {
  return value instanceof BSONSymbol ? value.value : (value as string);
}

function compareStrings(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 3:
      return compareNumbers(a, b);
    case 4:
      return compareStrings(stringOf(a), stringOf(b));
    case 5:
      return compareDocuments(a as Document, b as Document);
    case 6:
      return compareArrays(a as unknown[], b as unknown[]);
    case 7:
      return Buffer.compare(Buffer.from((a as Binary).buffer), Buffer.from((b as Binary).buffer));
    case 8:
      return Buffer.compare(Buffer.from((a as ObjectId).id), Buffer.from((b as ObjectId).id));
    case 9:
      return Number(a) - Number(b);
    case 10:
      return Math.sign((a as Date).getTime() - (b as Date).getTime());
    case 11:
      return (a as Timestamp).compare(b as Timestamp);
    case 12: {
      const x = regexParts(a as RegexValue);
      const y = regexParts(b as RegexValue);
      return compareStrings(x.pattern, y.pattern) || compareStrings(x.options, y.options);
    }
    default:
      return 0;
  }
}

function compareDocuments(a: Document, b: Document): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    const rank = typeRank(a[ka[i]]) - typeRank(b[kb[i]]);
    if (rank !== 0) return Math.sign(rank);
    if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
    const c = compareValues(a[ka[i]], b[kb[i]]);
    if (c !== 0) return c;
  }
  return Math.sign(ka.length - kb.length);
}

function compareArrays(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return Math.sign(a.length - b.length);
}

export function valuesEqual(a: unknown, b: unknown): boolean {
  return compareValues(a, b) === 0;
}

function numericKey(value: unknown): string {
  if (value instanceof Long) {
    return value.toString();
  }
  const n = numberOf(value);
  if (Number.isInteger(n)) return BigInt(n).toString();
  return String(n);
}

/** Canonical string for a value: equal under compareValues ⇔ equal keys (see header). */
export function indexKeyOf(value: unknown): string {
  switch (typeRank(value)) {
    case 2:
      return 'N';
    case 3:
      return `n${numericKey(value)}`;
    case 4:
      return `s${stringOf(value)}`;
    case 5:
      return `{${Object.entries(value as Document)
        .map(([k, v]) => `${JSON.stringify(k)}:${indexKeyOf(v)}`)
        .join(',')}}`;
    case 6:
      return `[${(value as unknown[]).map(indexKeyOf).join(',')}]`;
    case 7:
      return `x${(value as Binary).sub_type}:${Buffer.from((value as Binary).buffer).toString('base64')}`;
    case 8:
      return `o${(value as ObjectId).toHexString()}`;
    case 9:
      return value ? 'T' : 'F';
    case 10:
      return `d${(value as Date).getTime()}`;
    case 12: {
      const { pattern, options } = regexParts(value as RegexValue);
      return `r${JSON.stringify(pattern)}/${options}`;
    }
    default:
      return `t${typeRank(value)}:${String(value)}`;
  }
}

/** A value as mongod prints it inside E11000 messages (`{ _id: 1 }`, `{ email: "a@b" }`). */
export function formatValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Double || (typeof value === 'number' && !Number.isInteger(value))) {
    const n = numberOf(value);
    return Number.isInteger(n) ? n.toFixed(1) : String(n);
  }
  if (isNumeric(value)) return numericKey(value);
  if (value instanceof ObjectId) return `ObjectId('${value.toHexString()}')`;
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (Array.isArray(value)) return `[ ${value.map(formatValue).join(', ')} ]`;
  if (isPlainDocument(value)) return formatDocument(value);
  return String(value);
}

export function formatDocument(doc: Document): string {
  const entries = Object.entries(doc);
  if (entries.length === 0) return '{}';
  return `{ ${entries.map(([k, v]) => `${k}: ${formatValue(v)}`).join(', ')} }`;
}

/** Byte-for-byte the same BSON (field order and numeric types included), as mongod decides "modified". */
export function sameBson(a: Document, b: Document): boolean {
  return Buffer.from(BSON.serialize(a)).equals(BSON.serialize(b));
}

/** Deep copy of the document tree; BSON value objects are immutable and shared. */
export function cloneValue<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneValue) as T;
  if (isPlainDocument(value)) {
    const copy: Document = {};
    for (const key of Object.keys(value)) setOwnField(copy, key, cloneValue(value[key]));
    return copy as T;
  }
  return value;
}
