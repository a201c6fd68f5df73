/**
 * Encodes the records of journals and snapshots (record-file.ts: `[length][CRC-32][BSON
 * payload]`) with less work than `BSON.serialize`, into the same bytes: recovery reads them as it
 * always did, and files written before this encoder existed read the same way. No format change.
 *
 * Why: with a data directory every command's changes are encoded before its reply leaves, and
 * that encoding was the largest item of the CPU the journal adds to a write (about 12 µs of a
 * retryable `$inc`'s 45–55, the package's README.md). js-bson's serializer is general: for every
 * field it looks for `toBSON`, tests the key for a null byte with a regular expression, checks
 * the value's library version, and reads each value through megamorphic property loads, so a
 * record of 35 fields (a `$inc`'s change, update description and session record) cost about
 * 5 µs in a loop and more in the server. The journal's records hold few kinds of values: those
 * are written here directly; anything else sends the whole record to js-bson.
 *
 * Exactness: written here are strings, numbers (js-bson's rule: a safe integer in int32 range,
 * not -0, is an int32, else a double), booleans, null, undefined (left out of a document, null
 * in an array, as js-bson's default `ignoreUndefined`), Dates, plain documents and arrays up to
 * MAX_DEPTH, and js-bson's own (this process's library) Long, Timestamp, Int32, Double, ObjectId
 * and Binary of the generic, UUID and user subtypes. Any other value (Decimal128, a regex,
 * a Map, a key with a null byte, ...) throws NOT_SIMPLE before anything counts, and the record
 * goes through `BSON.serialize` whole, which also keeps js-bson's errors for what it refuses.
 * test/record-encoder.test.ts compares the bytes with `BSON.serialize` for every kind of
 * change and every kind of value. A record that does not fit the scratch buffer grows it, up to
 * js-bson's own limit; past that, `BSON.serialize` refuses it as before.
 */
import { crc32 } from 'node:zlib';
import { Binary, Double, Int32, Long, ObjectId, Timestamp, UUID } from 'bson';
import { Document } from '../engine/values';
import { encodeRecord } from './record-file';

const HEADER_BYTES = 8;
const INITIAL_SCRATCH_BYTES = 64 * 1024;
/** js-bson's own serialization buffer: no larger record was ever written */
const MAX_SCRATCH_BYTES = 17 * 1024 * 1024;
/** deeper documents go to js-bson (mongod refuses nesting beyond 100 anyway) */
const MAX_DEPTH = 100;
/** room checked before each field besides its variable-length part */
const FIELD_ROOM = 32;
const TWO_TO_32 = 2 ** 32;

const BSON_DOUBLE = 0x01;
const BSON_STRING = 0x02;
const BSON_DOCUMENT = 0x03;
const BSON_ARRAY = 0x04;
const BSON_BINARY = 0x05;
const BSON_OBJECT_ID = 0x07;
const BSON_BOOLEAN = 0x08;
const BSON_DATE = 0x09;
const BSON_NULL = 0x0a;
const BSON_INT32 = 0x10;
const BSON_TIMESTAMP = 0x11;
const BSON_INT64 = 0x12;
/** Binary subtypes written here: generic, UUID, user defined (not the old binary or vectors) */
const PLAIN_BINARY_SUBTYPES = new Set([Binary.SUBTYPE_DEFAULT, Binary.SUBTYPE_UUID, 0x80]);

/**
 * The values written here, by their exact prototype (one lookup, where a chain of instanceof
 * tests cost more than the writing): a subclass, or a class of another copy of js-bson, is not
 * among them and goes to js-bson.
 */
const KIND_BY_PROTOTYPE = new Map<object | null, string>([
  [Object.prototype, 'document'],
  [null, 'document'],
  [Array.prototype, 'array'],
  [Date.prototype, 'date'],
  [Timestamp.prototype, 'timestamp'],
  [Long.prototype, 'long'],
  [Int32.prototype, 'int32'],
  [Double.prototype, 'double'],
  [ObjectId.prototype, 'objectId'],
  [Binary.prototype, 'binary'],
  [UUID.prototype, 'binary'],
]);

/** A value this encoder does not write: the record goes through js-bson instead. */
class NotSimple extends Error {}
const NOT_SIMPLE = new NotSimple('not a value the record encoder writes');
/** The scratch buffer is too small for the record. */
class ScratchFull extends Error {}
const SCRATCH_FULL = new ScratchFull('the record does not fit the scratch buffer');

export class RecordEncoder {
  private scratch = Buffer.allocUnsafeSlow(INITIAL_SCRATCH_BYTES);
  private at = 0;

  /** `[length][CRC-32][BSON of record]`, the bytes framing `BSON.serialize(record)` gives. */
  encode(record: Document): Buffer {
    for (;;) {
      try {
        this.at = HEADER_BYTES;
        this.document(record, 0);
        return this.finish();
      } catch (error) {
        if (error === NOT_SIMPLE) return encodeRecord(record);
        if (error !== SCRATCH_FULL) throw error;
        if (this.scratch.length * 2 > MAX_SCRATCH_BYTES) return encodeRecord(record);
        this.scratch = Buffer.allocUnsafeSlow(this.scratch.length * 2);
      }
    }
  }

  private finish(): Buffer {
    const scratch = this.scratch;
    scratch.writeUInt32LE(this.at - HEADER_BYTES, 0);
    scratch.writeUInt32LE(crc32(scratch.subarray(HEADER_BYTES, this.at)), 4);
    const record = Buffer.allocUnsafe(this.at);
    scratch.copy(record, 0, 0, this.at);
    return record;
  }

  private document(document: Document, depth: number): void {
    if (depth > MAX_DEPTH) throw NOT_SIMPLE;
    const start = this.at;
    this.at += 4;
    for (const key of Object.keys(document)) {
      const value = document[key];
      if (value !== undefined) this.field(key, value, depth);
    }
    this.close(start);
  }

  private array(array: unknown[], depth: number): void {
    if (depth > MAX_DEPTH) throw NOT_SIMPLE;
    const start = this.at;
    this.at += 4;
    for (let i = 0; i < array.length; i++) this.field(String(i), array[i] ?? null, depth);
    this.close(start);
  }

  /** Writes one element: its type, its key, its value. */
  private field(key: string, value: unknown, depth: number): void {
    this.room(FIELD_ROOM + 3 * key.length);
    const typeAt = this.at;
    this.at++;
    this.cstring(key);
    this.scratch[typeAt] = this.value(value, depth);
  }

  /** Writes `value` at `at` and returns its BSON type. */
  private value(value: unknown, depth: number): number {
    switch (typeof value) {
      case 'string':
        this.string(value);
        return BSON_STRING;
      case 'number':
        if (Number.isSafeInteger(value) && value === (value | 0) && !Object.is(value, -0)) {
          this.int32(value);
          return BSON_INT32;
        }
        this.double(value);
        return BSON_DOUBLE;
      case 'boolean':
        this.scratch[this.at++] = value ? 1 : 0;
        return BSON_BOOLEAN;
      case 'object':
        return value === null ? BSON_NULL : this.object(value, depth);
      default:
        throw NOT_SIMPLE;
    }
  }

  private object(value: object, depth: number): number {
    switch (KIND_BY_PROTOTYPE.get(Object.getPrototypeOf(value) as object | null)) {
      case 'document':
        this.document(value as Document, depth + 1);
        return BSON_DOCUMENT;
      case 'array':
        this.array(value as unknown[], depth + 1);
        return BSON_ARRAY;
      case 'date': {
        const ms = (value as Date).getTime();
        if (!Number.isFinite(ms)) throw NOT_SIMPLE;
        this.int64(ms >>> 0, Math.floor(ms / TWO_TO_32));
        return BSON_DATE;
      }
      case 'timestamp':
        this.int64((value as Timestamp).low, (value as Timestamp).high);
        return BSON_TIMESTAMP;
      case 'long':
        this.int64((value as Long).low, (value as Long).high);
        return BSON_INT64;
      case 'int32':
        this.int32((value as Int32).value);
        return BSON_INT32;
      case 'double':
        this.double((value as Double).value);
        return BSON_DOUBLE;
      case 'objectId':
        this.room(12);
        this.scratch.set((value as ObjectId).id, this.at);
        this.at += 12;
        return BSON_OBJECT_ID;
      case 'binary':
        this.binary(value as Binary);
        return BSON_BINARY;
      default:
        throw NOT_SIMPLE;
    }
  }

  private binary(value: Binary): void {
    if (!PLAIN_BINARY_SUBTYPES.has(value.sub_type)) throw NOT_SIMPLE;
    const length = value.position;
    this.room(5 + length);
    putInt32(this.scratch, this.at, length);
    this.scratch[this.at + 4] = value.sub_type;
    this.scratch.set(value.buffer.subarray(0, length), this.at + 5);
    this.at += 5 + length;
  }

  private room(bytes: number): void {
    if (this.at + bytes > this.scratch.length) throw SCRATCH_FULL;
  }

  /** Ends the document or array begun at `start`: its terminating zero, then its length. */
  private close(start: number): void {
    this.room(1);
    this.scratch[this.at++] = 0;
    putInt32(this.scratch, start, this.at - start);
  }

  /** A key: UTF-8 and a zero; a key holding a zero is js-bson's to refuse. */
  private cstring(key: string): void {
    const scratch = this.scratch;
    let at = this.at;
    for (let i = 0; i < key.length; i++) {
      const code = key.charCodeAt(i);
      if (code === 0) throw NOT_SIMPLE;
      if (code >= 0x80) {
        at = this.at + scratch.write(key, this.at, 'utf8');
        if (scratch.indexOf(0, this.at) < at) throw NOT_SIMPLE;
        break;
      }
      scratch[at++] = code;
    }
    scratch[at++] = 0;
    this.at = at;
  }

  private string(value: string): void {
    this.room(5 + 3 * value.length);
    const scratch = this.scratch;
    const start = this.at + 4;
    let at = start;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code >= 0x80) {
        at = start + scratch.write(value, start, 'utf8');
        break;
      }
      scratch[at++] = code;
    }
    scratch[at++] = 0;
    putInt32(scratch, this.at, at - start);
    this.at = at;
  }

  private int32(value: number): void {
    this.room(4);
    putInt32(this.scratch, this.at, value);
    this.at += 4;
  }

  private double(value: number): void {
    this.room(8);
    this.scratch.writeDoubleLE(value, this.at);
    this.at += 8;
  }

  private int64(low: number, high: number): void {
    this.room(8);
    putInt32(this.scratch, this.at, low);
    putInt32(this.scratch, this.at + 4, high);
    this.at += 8;
  }
}

/** The low 32 bits of `value`, little-endian (what Buffer's writeInt32LE stores, unchecked). */
function putInt32(buffer: Buffer, at: number, value: number): void {
  buffer[at] = value;
  buffer[at + 1] = value >>> 8;
  buffer[at + 2] = value >>> 16;
  buffer[at + 3] = value >>> 24;
}
