/**
 * A write that waited for a transaction's lock with a maxTimeMS leaves no timer behind once the
 * transaction ended: before, the wait's timer stayed armed for the rest of maxTimeMS, holding
 * the process (jest: "did not exit one second after the test run").
 */
import { MongoClient } from 'mongodb';
import { startStandin } from '../src';

function timers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}

test('a lock wait ended by the transaction clears its maxTimeMS timer', async () => {
  const standin = await startStandin({ log: () => undefined });
  const client = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    const collection = client.db('wait').collection<{ _id: number; n: number }>('c');
    await collection.insertOne({ _id: 1, n: 0 });
    const session = client.startSession();
    session.startTransaction();
    await collection.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session });
    const idle = timers();
    const waiting = collection.updateOne({ _id: 1 }, { $inc: { n: 10 } }, { maxTimeMS: 600_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(timers()).toBeGreaterThan(idle); // the wait's own
    await session.abortTransaction();
    await expect(waiting).resolves.toMatchObject({ modifiedCount: 1 });
    // the driver's own timers come and go: allow them a moment, not the 600 s of maxTimeMS
    for (let tries = 0; tries < 20 && timers() > idle; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(timers()).toBeLessThanOrEqual(idle);
    await session.endSession();
  } finally {
    await client.close();
    await standin.stop();
  }
});
