/**
 * The journal's record encoder (state/record-encoder.ts) writes exactly the bytes the record
 * format always had, `encodeRecord` (js-bson's `BSON.serialize`, framed): for every kind of value
 * it writes itself, for every value it leaves to js-bson, and for every record a real stand-in
 * journals while the driver runs each kind of command, transactions and retryable writes
 * included. So journals written before it and after it are the same bytes, and recovery reads
 * both alike.
 */
import {
  Binary,
  BSON,
  BSONRegExp,
  Code,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  UUID,
} from 'bson';
import { MongoClient } from 'mongodb';
import { Document } from '../src/engine/values';
import { startStandin } from '../src/index';
import { RecordEncoder } from '../src/state/record-encoder';
import { decodeRecords, encodeRecord } from '../src/state/record-file';
import { freshDataDir } from './data-dir';

const dataDir = freshDataDir('standin-record-encoder-');

interface Counter {
  _id: string | UUID | Decimal128;
  seq?: Long;
  name?: string;
  at?: Date;
  id?: ObjectId;
}

interface Tagged {
  _id: number;
  tags?: string[];
  n?: number;
}

function expectSameBytes(record: Document, encoder = new RecordEncoder()): void {
  const encoded = encoder.encode(record);
  expect(encoded.equals(encodeRecord(record))).toBe(true);
  expect(decodeRecords(encoded, 'journal.000001').records).toHaveLength(1);
}

/** A Binary whose buffer (js-bson's 256 bytes) holds more than the 3 bytes written into it. */
function grownBinary(): Binary {
  const binary = new Binary();
  binary.write(Buffer.from('abc'), 0);
  return binary;
}

const nested = (depth: number): Document => (depth === 0 ? { leaf: 1 } : { d: nested(depth - 1) });

describe('the same bytes as BSON.serialize', () => {
  test.each<[string, unknown]>([
    ['an ASCII string', 'user 42'],
    ['an empty string', ''],
    ['a string of two-, three- and four-byte characters', 'é€😀 and ascii'],
    ['a lone surrogate', '\ud800x'],
    ['int32 bounds', [0, 1, -1, 2147483647, -2147483648]],
    ['numbers stored as doubles', [2147483648, -2147483649, 1.5, -0, NaN, Infinity, -Infinity]],
    ['a safe integer beyond int32', Number.MAX_SAFE_INTEGER],
    ['booleans and null', [true, false, null]],
    ['undefined in an array (null there)', [1, undefined, 3]],
    ['an array with a hole', [1, , 3]], // eslint-disable-line no-sparse-arrays
    ['dates', [new Date(0), new Date(-1), new Date(-62135596800000), new Date(8.64e15)]],
    ['Int32, Double, Long and Timestamp', [new Int32(-7), new Double(2), new Double(-0), Long.fromString('-9223372036854775808'), Long.fromNumber(2 ** 40), new Timestamp({ t: 4294967295, i: 4294967295 })]], // prettier-ignore
    ['an ObjectId', new ObjectId()],
    ['Binary of the generic, UUID and user subtypes', [new Binary(Buffer.from('abc')), new UUID(), new Binary(Buffer.alloc(40, 7), 0x80), new Binary(Buffer.alloc(0))]], // prettier-ignore
    ['a Binary with room past its bytes', grownBinary()],
    ['nested documents and arrays', { a: [{ b: [[], {}] }], c: { d: { e: [1, 'x'] } } }],
    ['a document of null prototype', Object.assign(Object.create(null) as Document, { k: 1 })],
    ['keys of any characters', { 'é€': 1, 'a.b': 2, $set: 3, '': 4 }],
    // left to js-bson
    ['Decimal128, regexes, MinKey, MaxKey, Code', [Decimal128.fromString('1.5'), new BSONRegExp('a', 'i'), /x/m, new MinKey(), new MaxKey(), new Code('f()')]], // prettier-ignore
    ['Binary of the old binary subtype', new Binary(Buffer.from('xyz'), Binary.SUBTYPE_BYTE_ARRAY)],
    ['an invalid date', new Date(NaN)],
    ['a Map', new Map([['m', 1]])],
    ['documents nested 150 deep', nested(150)],
    ['a bigint', 12n],
  ])('%s', (_, value) => {
    expectSameBytes({ op: 'put', db: 'd', coll: 'c', doc: { _id: 1, value } });
  });

  test('the grown Binary above does hold more than its bytes', () => {
    const binary = grownBinary();
    expect(binary.position).toBe(3);
    expect(binary.buffer.length).toBeGreaterThan(3);
  });

  test('a document with a field left undefined leaves it out, as js-bson does', () => {
    expectSameBytes({ op: 'put', doc: { _id: 1, gone: undefined, kept: 2 } });
  });

  test('records larger than the scratch buffer, grown as needed, and one encoder reused', () => {
    const encoder = new RecordEncoder();
    expectSameBytes({ op: 'put', doc: { big: 'x'.repeat(100_000) } }, encoder);
    expectSameBytes({ op: 'put', doc: { bigger: Buffer.alloc(3_000_000, 1) } }, encoder);
    expectSameBytes({ op: 'put', doc: { small: 1 } }, encoder);
  });

  test("js-bson's refusals stay its refusals", () => {
    const encoder = new RecordEncoder();
    for (const record of [
      { op: 'put', doc: { 'a\0b': 1 } },
      { op: 'put', doc: { f: () => 1 } },
    ]) {
      let expected: unknown;
      try {
        expected = encodeRecord(record);
      } catch (error) {
        expected = error;
      }
      if (expected instanceof Error) expect(() => encoder.encode(record)).toThrow(expected.message);
      else expect(encoder.encode(record).equals(expected as Buffer)).toBe(true);
    }
  });
});

test('every record a stand-in journals through the driver is what BSON.serialize gives', async () => {
  // each record compared when it is encoded, before anything else could touch it
  const original = RecordEncoder.prototype.encode;
  const records: Document[] = [];
  const different: Document[] = [];
  const encode = jest.spyOn(RecordEncoder.prototype, 'encode').mockImplementation(function (
    this: RecordEncoder,
    record: Document,
  ) {
    const encoded = original.call(this, record);
    records.push(record);
    if (!encoded.equals(encodeRecord(record))) different.push(record);
    return encoded;
  });
  const standin = await startStandin({ dataDir: dataDir.path });
  const client = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    const db = client.db('shapes');
    await db.createCollection('images', { changeStreamPreAndPostImages: { enabled: true } });
    const images = db.collection<Tagged>('images');
    await images.insertOne({ _id: 1, tags: ['a', 'b', 'c'], n: 1.5 });
    await images.updateOne({ _id: 1 }, { $set: { tags: ['a'] }, $unset: { n: '' } });
    const counters = db.collection<Counter>('counters');
    await counters.createIndex({ name: 1 }, { unique: true });
    await counters.findOneAndUpdate(
      { _id: 'c' },
      { $inc: { seq: Long.ONE } },
      { upsert: true, returnDocument: 'after' },
    );
    await counters.replaceOne({ _id: 'c' }, { name: 'é', at: new Date(), id: new ObjectId() });
    await counters.insertMany([
      { _id: new UUID(), name: 'u' },
      { _id: Decimal128.fromString('2.5'), name: 'd' },
    ]);
    await counters.deleteOne({ _id: 'c' });
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await counters.insertOne({ _id: 'in a transaction' }, { session });
        await images.updateOne({ _id: 1 }, { $set: { 'tags.1': 'z' } }, { session });
      });
    } finally {
      await session.endSession();
    }
    await counters.dropIndex('name_1');
    await counters.rename('renamed');
    await db.collection('renamed').drop();
    await client.db('gone').collection('x').insertOne({ x: 1 });
    await client.db('gone').dropDatabase();
  } finally {
    await client.close();
    await standin.stop();
  }
  encode.mockRestore();
  const ops = new Set(records.flatMap((record) => [record.op, ...inner(record).map((r) => r.op)]));
  expect([...ops].sort()).toEqual(
    [
      'collectionOptions',
      'createCollection',
      'createIndex',
      'dropCollection',
      'dropDatabase',
      'dropIndex',
      'group',
      'put',
      'remove',
      'renameCollection',
    ].sort(),
  );
  expect(different).toEqual([]);
});

function inner(record: Document): Document[] {
  return record.op === 'group'
    ? (record.records as Document[]).flatMap((r) => [r, ...inner(r)])
    : [];
}

test('BSON.serialize is what encodeRecord frames (the format the encoder must keep)', () => {
  const record = { op: 'put', doc: { _id: 1 } };
  const framed = encodeRecord(record);
  expect(framed.subarray(8).equals(BSON.serialize(record))).toBe(true);
});
