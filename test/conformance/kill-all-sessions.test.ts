/**
 * `killAllSessions` and `killAllSessionsByPattern` abort open transactions at once, as mongod
 * does: the killed transaction's commit is NoSuchTransaction, its writes are gone, its locks
 * are free (a write waiting for one runs), and the session lives on. killAllSessions kills every
 * session of the server, so this file never shares one with other files running at the same time:
 * on the stand-in it starts its own; a real mongod runs test files one at a time (jest.config.ts).
 * Runs unchanged against real MongoDB.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import { Binary, ClientSession, MongoClient } from 'mongodb';
import { RunningStandin, startStandin } from '../../src/standin';
import { testBackend, testMongoUri, uniqueDbName } from '../support/db';

let standin: RunningStandin | undefined;
let client: MongoClient;
const dbName = uniqueDbName('conformance_kill_all_sessions');

beforeAll(async () => {
  if (testBackend() === 'standin') standin = await startStandin({ log: () => undefined });
  client = await new MongoClient(standin?.uri ?? testMongoUri(), {
    runtimeAdapters: { os },
    serverSelectionTimeoutMS: 5_000,
  }).connect();
});

afterAll(async () => {
  await client.db(dbName).dropDatabase();
  await client.close();
  await standin?.stop();
});

/** A session with a transaction open that inserted `{ _id }`. */
async function openTransaction(collection: string, _id: number): Promise<ClientSession> {
  const session = client.startSession();
  session.startTransaction();
  await client.db(dbName).collection<{ _id: number }>(collection).insertOne({ _id }, { session });
  return session;
}

/** The session's id as mongod keys it without access control: its uid is SHA-256 of nothing. */
function lsidOf(session: ClientSession) {
  return { id: session.id!.id, uid: new Binary(createHash('sha256').digest()) };
}

test('killAllSessions: [] aborts every open transaction; the sessions live on', async () => {
  const collection = client.db(dbName).collection<{ _id: number }>('all');
  await collection.insertOne({ _id: 0 });
  const sessions = [await openTransaction('all', 1), await openTransaction('all', 2)];
  await client.db('admin').command({ killAllSessions: [] });
  for (const session of sessions) {
    await expect(session.commitTransaction()).rejects.toMatchObject({ code: 251 });
  }
  expect(await collection.find().toArray()).toEqual([{ _id: 0 }]);
  const [again] = sessions;
  await again.withTransaction(() => collection.insertOne({ _id: 3 }, { session: again }));
  expect(await collection.countDocuments()).toBe(2);
  for (const session of sessions) await session.endSession();
});

test('killAllSessionsByPattern by lsid aborts that session only, and frees its locks', async () => {
  const collection = client.db(dbName).collection<{ _id: number; n?: number }>('pattern');
  await collection.insertOne({ _id: 0, n: 0 });
  const killed = await openTransaction('pattern', 1);
  await collection.updateOne({ _id: 0 }, { $inc: { n: 1 } }, { session: killed });
  const spared = await openTransaction('pattern', 2);
  let waited = false;
  const outside = collection.updateOne({ _id: 0 }, { $inc: { n: 10 } }).then((result) => {
    waited = true;
    return result;
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(waited).toBe(false); // the write waits for the transaction holding `{ _id: 0 }`
  await client.db('admin').command({ killAllSessionsByPattern: [{ lsid: lsidOf(killed) }] });
  await expect(outside).resolves.toMatchObject({ modifiedCount: 1 });
  await expect(killed.commitTransaction()).rejects.toMatchObject({ code: 251 });
  await spared.commitTransaction();
  expect(await collection.find().sort({ _id: 1 }).toArray()).toEqual([
    { _id: 0, n: 10 },
    { _id: 2 },
  ]);
  await killed.endSession();
  await spared.endSession();
});
