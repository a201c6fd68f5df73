/**
 * The regex budget (engine/regex.ts): a match that runs past REGEX_MATCH_BUDGET_MS fails its
 * command with 51156 before anything is applied, later matches run as before (the script that
 * was stopped is reused), and matches linear in a long subject are not stopped. Only tests whose
 * pattern and subject length could run long pay for the budget's watchdog (needsBudget).
 * test/conformance/regex-budget.test.ts holds what mongod answers alike.
 */
import { MongoClient } from 'mongodb';
import { RunningStandin, startStandin } from '../src';
import { compileRegex, needsBudget } from '../src/engine/regex';

let standin: RunningStandin;
let client: MongoClient;

beforeAll(async () => {
  standin = await startStandin({ log: () => undefined });
  client = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 3_000 });
});

afterAll(async () => {
  await client?.close();
  await standin?.stop();
});

/** About 2^28 ways to split the `a`s, none of which ends the string: a backtracking engine tries them all. */
const catastrophic = { $regex: '^(a+)+$' };
const stuck = `${'a'.repeat(28)}!`;

function collection(name: string) {
  return client.db('regex_budget').collection<{ _id: number; s: string; hit?: boolean }>(name);
}

test('a find whose match runs past the budget fails with 51156, as mongod names a stopped match', async () => {
  const docs = collection('find');
  await docs.insertMany([
    { _id: 1, s: 'aaa' },
    { _id: 2, s: stuck },
  ]);
  const error = await docs
    .find({ s: catastrophic })
    .toArray()
    .catch((caught: unknown) => caught);
  expect(error).toMatchObject({ code: 51156, codeName: 'Location51156' });
  expect((error as Error).message).toMatch(/match limit exceeded/);
  // the same pattern over a subject it settles at once, through the script that was stopped
  expect(await docs.find({ _id: 1, s: catastrophic }).toArray()).toEqual([{ _id: 1, s: 'aaa' }]);
  expect(await docs.countDocuments({ s: { $in: [/^a+!$/, /^b/] } })).toBe(1);
});

test('an update or a delete whose match runs past the budget changes nothing', async () => {
  const docs = collection('writes');
  await docs.insertMany([
    { _id: 1, s: 'aaa' },
    { _id: 2, s: stuck },
  ]);
  await expect(docs.updateMany({ s: catastrophic }, { $set: { hit: true } })).rejects.toMatchObject(
    { code: 51156 },
  );
  await expect(docs.deleteMany({ s: catastrophic })).rejects.toMatchObject({ code: 51156 });
  await expect(
    docs.findOneAndUpdate({ s: { $not: /^(a+)+$/ } }, { $set: { hit: true } }),
  ).rejects.toMatchObject({ code: 51156 });
  expect(await docs.find().sort({ _id: 1 }).toArray()).toEqual([
    { _id: 1, s: 'aaa' },
    { _id: 2, s: stuck },
  ]);
});

test('a match linear in a long subject is not stopped', async () => {
  const docs = collection('long');
  const long = `${'ab'.repeat(128 * 1024)}!`;
  await docs.insertOne({ _id: 1, s: long });
  expect(await docs.countDocuments({ s: { $regex: '!$' } })).toBe(1);
  expect(await docs.countDocuments({ s: { $regex: '^[ab]*!$' } })).toBe(1);
  expect(await docs.countDocuments({ s: { $regex: 'AB!', $options: 'i' } })).toBe(1);
  expect(await docs.countDocuments({ s: { $regex: '^[ab]*c' } })).toBe(0);
});

describe('which tests need the budget', () => {
  test.each([
    ['^al', 'i', 30],
    ['example\\.com$', '', 10_000],
    ['a|b|c', '', 100],
    ['^[a-z]+@example\\.com$', '', 40],
    ['x.*?y', 's', 50],
  ])('/%s/%s over %i characters does not', (pattern, options, length) => {
    expect(needsBudget(compileRegex(pattern, options), length)).toBe(false);
  });

  test.each([
    ['^(a+)+$', '', 29],
    ['(a|a)*b', '', 10],
    ['(?:ab){2}', '', 4],
    ['(\\w)\\1', '', 2],
    ['x.*y', '', 100_000],
    ['a*a*a*b', '', 1_000],
    ['[ab]*(?=c*)d', 'x', 1_000],
  ])('/%s/%s over %i characters does', (pattern, options, length) => {
    expect(needsBudget(compileRegex(pattern, options), length)).toBe(true);
  });
});
