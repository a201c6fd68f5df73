/** The in-memory engine without the network: BSON order, matching, updates, indexes, planning. */
import { Double, Int32, Long, ObjectId } from 'bson';
import { Collection } from '../src/engine/collection';
import { CommandError } from '../src/engine/errors';
import { parseIndexSpec } from '../src/engine/indexes';
import { compileFilter } from '../src/engine/matcher';
import { runQuery } from '../src/engine/query';
import { applyUpdate } from '../src/engine/update';
import { compareValues, formatDocument, indexKeyOf } from '../src/engine/values';

describe('BSON values', () => {
  test('numbers compare by value across Int32, Int64 and Double, and share index keys', () => {
    expect(compareValues(new Int32(1), Long.fromNumber(1))).toBe(0);
    expect(compareValues(new Double(1), Long.fromNumber(1))).toBe(0);
    expect(indexKeyOf(new Int32(1))).toBe(indexKeyOf(new Double(1)));
    expect(indexKeyOf(Long.fromNumber(1))).toBe(indexKeyOf(new Int32(1)));
    expect(compareValues(Long.fromString('9007199254740993'), new Double(9007199254740992))).toBe(
      1,
    );
  });

  test('values of different types follow MongoDB order: null < numbers < strings < objects < ObjectId < booleans < dates', () => {
    const ordered = [null, new Int32(5), 'a', { a: 1 }, new ObjectId(), false, new Date(0)];
    const shuffled = [...ordered].reverse().sort(compareValues);
    expect(shuffled).toEqual(ordered);
  });

  test('null and a missing value share an index key', () => {
    expect(indexKeyOf(null)).toBe(indexKeyOf(undefined));
  });

  test('E11000 values print the way mongod prints them', () => {
    expect(
      formatDocument({ _id: Long.fromNumber(5), s: 'x', d: new Double(2), f: new Double(1.5) }),
    ).toBe('{ _id: 5, s: "x", d: 2.0, f: 1.5 }');
  });
});

describe('matching', () => {
  test('range operators do not cross type brackets', () => {
    const gt = compileFilter({ a: { $gt: new Int32(1) } });
    expect(gt({ a: new Int32(2) })).toBe(true);
    expect(gt({ a: 'zzz' })).toBe(false);
  });

  test('unsupported operators are refused by name, not ignored', () => {
    expect(() => compileFilter({ a: { $elemMatch: { b: 1 } } })).toThrow(
      /stand-in does not support the query operator \$elemMatch/,
    );
    expect(() => compileFilter({ $where: 'true' })).toThrow(/\$where/);
  });
});

describe('regular expressions keep PCRE2 meaning or are refused', () => {
  const matches = (pattern: string, options: string, value: string) =>
    compileFilter({ a: { $regex: pattern, $options: options } })({ a: value });

  test('. stops only at \\n, $ also matches before a final \\n, \\s is ASCII space only', () => {
    expect(matches('a.b', '', 'a\rb')).toBe(true);
    expect(matches('a.b', '', 'a\u2028b')).toBe(true);
    expect(matches('a.b', '', 'a\nb')).toBe(false);
    expect(matches('a$', '', 'a\n')).toBe(true);
    expect(matches('^b', 'm', 'a\rb')).toBe(false);
    expect(matches('^b', 'm', 'a\nb')).toBe(true);
    expect(matches('a\\sb', '', 'a\u00a0b')).toBe(false);
    expect(matches('a[\\s]b', '', 'a\tb')).toBe(true);
  });

  test('escaped punctuation is literal, \\x{..} is a code point, (?P<n>) is a named group', () => {
    expect(matches('a\\-b\\@', '', 'a-b@')).toBe(true);
    expect(matches('\\x{e9}', '', 'caf\u00e9')).toBe(true);
    expect(matches('(?P<w>x)\\1', '', 'xx')).toBe(true);
    expect(matches('a{2}b{', '', 'aab{')).toBe(true);
  });

  test.each([
    ['a++', 'possessive'],
    ['(?>a)', 'atomic'],
    ['(?i)a', 'inline options'],
    ['\\p{L}', 'Unicode properties'],
    ['[[:alpha:]]', 'POSIX'],
    ['\\Ga', '\\G'],
  ])('%s is refused naming the construct', (pattern, named) => {
    expect(() => matches(pattern, '', 'a')).toThrow(named);
  });
});

describe('updates', () => {
  test('the positional $ takes the element the query matched, or is refused when that is ambiguous', () => {
    // Before, 'grades.$' set a property named NaN on the array: a silent no-op.
    const doc = { _id: 1, grades: [80, 85, 90] };
    const set = { $set: { 'grades.$': 0 } };
    expect(applyUpdate(doc, set, { query: { grades: { $gte: 85 } } }).grades).toEqual([80, 0, 90]);
    expect(() => applyUpdate(doc, set, { query: { grades: { $gt: 80, $lt: 90 } } })).toThrow(
      /more than one condition/,
    );
    expect(() => applyUpdate(doc, set, { query: { _id: 1 } })).toThrow(/did not find the match/);
  });

  test('the original document is never mutated (images stay snapshots)', () => {
    const original = { _id: 1, nested: { n: new Int32(1) } };
    const updated = applyUpdate(original, { $inc: { 'nested.n': new Int32(1) } });
    expect(original.nested.n).toEqual(new Int32(1));
    expect(updated.nested).toEqual({ n: new Int32(2) });
  });

  test('Int64 overflow in $inc is an error, not a wrap-around', () => {
    expect(() => applyUpdate({ _id: 1, n: Long.MAX_VALUE }, { $inc: { n: new Int32(1) } })).toThrow(
      CommandError,
    );
  });

  test('changing _id and conflicting paths are refused with mongod codes', () => {
    const codeOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as CommandError).code;
      }
      return null;
    };
    expect(codeOf(() => applyUpdate({ _id: 1 }, { $set: { _id: 2 } }))).toBe(66);
    expect(codeOf(() => applyUpdate({ _id: 1 }, { $set: { a: 1 }, $inc: { a: 1 } }))).toBe(40);
    expect(codeOf(() => applyUpdate({ _id: 1 }, { $push: { a: 1 } }))).toBe(2);
  });
});

describe('collections and indexes', () => {
  test('a compound unique index reports every field in keyPattern and keyValue', () => {
    const collection = new Collection('db', 'c');
    collection.addIndex(parseIndexSpec({ name: 'a_b', key: { a: 1, b: 1 }, unique: true }));
    collection.insert({ _id: 1, a: 'x', b: 1 });
    collection.insert({ _id: 2, a: 'x', b: 2 });
    let error: CommandError | undefined;
    try {
      collection.insert({ _id: 3, a: 'x', b: new Double(1) });
    } catch (e) {
      error = e as CommandError;
    }
    expect(error?.message).toBe(
      'E11000 duplicate key error collection: db.c index: a_b dup key: { a: "x", b: 1.0 }',
    );
    expect(error?.extra).toEqual({
      keyPattern: { a: 1, b: 1 },
      keyValue: { a: 'x', b: new Double(1) },
    });
    expect(collection.size).toBe(2);
  });

  test('a failed update leaves the unique index pointing at the old value', () => {
    const collection = new Collection('db', 'c');
    collection.addIndex(parseIndexSpec({ name: 'e', key: { e: 1 }, unique: true }));
    const first = collection.insert({ _id: 1, e: 'a' });
    collection.insert({ _id: 2, e: 'b' });
    expect(() => collection.replace(first, { _id: 1, e: 'b' })).toThrow(CommandError);
    expect(() => collection.insert({ _id: 3, e: 'a' })).toThrow(CommandError);
    collection.insert({ _id: 4, e: 'c' });
  });

  test('sort on _id reads the ordered ids and stops at the limit, in both directions', () => {
    const collection = new Collection('db', 'c');
    for (const id of [5, 1, 9, 3, 7]) collection.insert({ _id: Long.fromNumber(id) });
    collection.remove(collection.byId(Long.fromNumber(9))!);
    const ids = (sort: 1 | -1, limit: number) =>
      runQuery(collection, {}, { sort: { _id: sort }, limit }).map((doc) => Number(doc._id));
    expect(ids(-1, 1)).toEqual([7]);
    expect(ids(1, 0)).toEqual([1, 3, 5, 7]);
  });

  test('a lookup by a partial unique index finds the document without scanning, and misses correctly', () => {
    const collection = new Collection('db', 'users');
    collection.addIndex(
      parseIndexSpec({
        name: 'email',
        key: { email: 1 },
        unique: true,
        partialFilterExpression: { email: { $type: 'string' } },
      }),
    );
    collection.insert({ _id: 1, email: 'a@x' });
    collection.insert({ _id: 2 });
    expect(runQuery(collection, { email: 'a@x' }).map((doc) => doc._id)).toEqual([1]);
    expect(runQuery(collection, { email: 'b@x' })).toEqual([]);
    expect(runQuery(collection, { email: null }).map((doc) => doc._id)).toEqual([2]);
  });
});
