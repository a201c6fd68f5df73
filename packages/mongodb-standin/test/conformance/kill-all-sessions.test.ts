/**
 * `killAllSessions` and `killAllSessionsByPattern` abort open transactions at once, as mongod
 * does: the killed transaction's commit is NoSuchTransaction, its writes are gone, its locks
 * are free (a write waiting for one runs), and the session lives on. killAllSessions kills every
 * session of the server, so this file has a server of its own (fixture.ts). Runs unchanged
 * against real MongoDB.
 */
import { createHash } from 'node:crypto';
import { Binary, ClientSession } from 'mongodb';
import { useConformanceServerOfItsOwn } from './fixture';

const shared = useConformanceServerOfItsOwn('conformance_kill_all_sessions');

/** A session with a transaction open that inserted `{ _id }`. */
async function openTransaction(collection: string, _id: number): Promise<ClientSession> {
  const session = shared.client.startSession();
  session.startTransaction();
  await shared.db.collection<{ _id: number }>(collection).insertOne({ _id }, { session });
  return session;
}

/** The session's id as mongod keys it without access control: its uid is SHA-256 of nothing. */
function lsidOf(session: ClientSession) {
  return { id: session.id!.id, uid: new Binary(createHash('sha256').digest()) };
}

test('killAllSessions: [] aborts every open transaction; the sessions live on', async () => {
  const collection = shared.db.collection<{ _id: number }>('all');
  await collection.insertOne({ _id: 0 });
  const sessions = [await openTransaction('all', 1), await openTransaction('all', 2)];
  await shared.client.db('admin').command({ killAllSessions: [] });
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
  const collection = shared.db.collection<{ _id: number; n?: number }>('pattern');
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
  await shared.client.db('admin').command({ killAllSessionsByPattern: [{ lsid: lsidOf(killed) }] });
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
