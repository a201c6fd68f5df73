/**
 * Regular expressions in queries, as mongod (PCRE2) answers them: regex values sent by the
 * driver, `$regex`/`$options` (i, m, s, x), regexes inside `$in`, `$nin` and `$not`, `$match`,
 * counts, a unique index on the queried field, and the errors for malformed regexes.
 */
import { BSONRegExp, MongoServerError } from 'mongodb';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_regex');

beforeAll(async () => {
  await shared.db.collection('people').insertMany([
    { _id: 1 as never, name: 'ada', email: 'ada@example.com' },
    { _id: 2 as never, name: 'Alan', email: 'alan@EXAMPLE.org' },
    { _id: 3 as never, name: 'grace', email: null, notes: 'line one\nline two' },
    { _id: 4 as never, name: 'edsger', email: ['e@x.io', 'dijkstra@example.com'] },
    { _id: 5 as never, name: 5, notes: 'trailing\n' },
    { _id: 6 as never, name: 'rex', pattern: /^a/ },
  ]);
});

async function ids(filter: object): Promise<number[]> {
  const docs = await shared.db.collection('people').find(filter).sort({ _id: 1 }).toArray();
  return docs.map((doc) => doc._id as unknown as number);
}

test.each([
  [{ email: /example/ }, [1, 4]],
  [{ email: /example/i }, [1, 2, 4]],
  [{ email: { $regex: 'EXAMPLE', $options: 'i' } }, [1, 2, 4]],
  [{ email: { $regex: /^a/ } }, [1, 2]],
  [{ email: { $regex: new BSONRegExp('^A', 'i') } }, [1, 2]],
  [{ name: { $in: [/^a/i, 'grace'] } }, [1, 2, 3]],
  [{ name: { $nin: [/^a/] } }, [2, 3, 4, 5, 6]],
  [{ name: { $not: /^a/i } }, [3, 4, 5, 6]],
  [{ name: { $not: { $regex: '^A' } } }, [1, 3, 4, 5, 6]],
  [{ notes: /^line two$/ }, []],
  [{ notes: /^line two$/m }, [3]],
  [{ notes: { $regex: '^two', $options: 'm' } }, []],
  [{ notes: { $regex: 'one.line' } }, []],
  [{ notes: { $regex: 'one.line', $options: 's' } }, [3]],
  [{ email: { $regex: 'example \\. com  # the domain', $options: 'x' } }, [1, 4]],
  [{ notes: /trailing$/ }, [5]],
  [{ notes: new BSONRegExp('trailing\\z') }, []],
  [{ notes: new BSONRegExp('\\Aline') }, [3]],
  [{ email: new BSONRegExp('\\Qe@x.io\\E') }, [4]],
  [{ name: /\d/ }, []],
  [{ email: /^[a-z]+@example\.(com|org)$/ }, [1, 4]],
  [{ pattern: /^a/ }, [6]],
  [{ pattern: { $eq: /^a/ } }, [6]],
  [{ name: { $eq: /^a/ } }, []],
  [{ _id: /1/ }, []],
])('find %p matches %j', async (filter, expected) => {
  expect(await ids(filter)).toEqual(expected);
});

test('regexes work in $match, countDocuments and with a unique index on the field', async () => {
  const people = shared.db.collection('people');
  const matched = await people
    .aggregate([{ $match: { email: /example\.com$/ } }, { $sort: { _id: 1 } }])
    .toArray();
  expect(matched.map((doc) => doc._id)).toEqual([1, 4]);
  expect(await people.countDocuments({ email: /example/i })).toBe(3);

  const users = shared.db.collection('users');
  await users.createIndex({ email: 1 }, { unique: true });
  await users.insertMany([
    { email: 'a@example.com' },
    { email: 'b@example.com' },
    { email: 'c@x' },
  ]);
  expect(await users.countDocuments({ email: /example/ })).toBe(2);
  expect(await users.find({ email: { $in: [/^a@/, 'c@x'] } }).toArray()).toHaveLength(2);
});

async function errorOf(filter: object): Promise<MongoServerError> {
  const error = await shared.db
    .collection('people')
    .find(filter)
    .toArray()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MongoServerError);
  return error as MongoServerError;
}

test.each([
  ['an unknown option', { name: { $regex: 'a', $options: 'g' } }, 51108],
  ['a pattern PCRE rejects', { name: { $regex: '(' } }, 51091],
  ['options both in the regex and in $options', { name: { $regex: /a/i, $options: 'm' } }, 51075],
  ['$options without $regex', { name: { $options: 'i' } }, 2],
  ['a $regex that is not a string', { name: { $regex: 5 } }, 2],
  ['a regex under $ne', { name: { $ne: /a/ } }, 2],
])('%s is refused (filter %j, code %d)', async (_case, filter, code) => {
  expect((await errorOf(filter)).code).toBe(code);
});
