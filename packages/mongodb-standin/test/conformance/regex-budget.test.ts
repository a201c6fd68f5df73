/**
 * A regular expression that backtracks catastrophically holds no other client: `^(a+)+$`
 * against 28 `a`s and a `!` (about 2^28 ways to split the `a`s, none of which ends the string).
 * mongod's PCRE2 stops such a match at its match limit while its other threads answer; the
 * stand-in runs one command at a time and stops the match at its budget (engine/regex.ts), so
 * a ping on another connection waits at most that long. The find then fails with 51156 on the
 * stand-in, while mongod's `$regex` takes a stopped match for no match: either answer passes
 * here, the document never does. Runs unchanged against real MongoDB.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { connectTestClient } from '../support/db';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_regex_budget');
let other: MongoClient;

beforeAll(async () => {
  other = await connectTestClient();
  await other.db('admin').command({ ping: 1 });
});

afterAll(async () => {
  await other?.close();
});

test('a ping on another connection answers while a catastrophic $regex runs, which never returns the document', async () => {
  const collection = shared.db.collection<{ _id: number; s: string }>('backtracking');
  await collection.insertOne({ _id: 1, s: `${'a'.repeat(28)}!` });
  let findSent!: () => void;
  const sent = new Promise<void>((resolve) => (findSent = resolve));
  const watcher = await connectTestClient({ monitorCommands: true });
  try {
    watcher.on('commandStarted', (event) => {
      if (event.commandName === 'find') findSent();
    });
    const query = watcher
      .db(shared.db.databaseName)
      .collection<{ _id: number; s: string }>('backtracking')
      .find({ s: { $regex: '^(a+)+$' } })
      .toArray()
      .then(
        (docs) => ({ docs, error: undefined }),
        (error: unknown) => ({ docs: undefined, error }),
      );
    await sent;
    await sleep(5); // the find reaches the server and its match begins
    const pinged = performance.now();
    await other.db('admin').command({ ping: 1 });
    const pingMs = performance.now() - pinged;
    const answer = await query;
    // without a bound the match runs for seconds (20 s measured); the stand-in's budget is 50 ms
    expect(pingMs).toBeLessThan(1_000);
    if (answer.error === undefined) expect(answer.docs).toEqual([]);
    else expect(answer.error).toMatchObject({ code: 51156 });
  } finally {
    await watcher.close();
  }
});

test('after a stopped match the same pattern still answers over subjects it settles at once', async () => {
  const collection = shared.db.collection<{ _id: number; s: string }>('settled');
  await collection.insertMany([
    { _id: 1, s: 'aaaa' },
    { _id: 2, s: 'aab' },
  ]);
  expect(await collection.find({ s: { $regex: '^(a+)+$' } }).toArray()).toEqual([
    { _id: 1, s: 'aaaa' },
  ]);
});
