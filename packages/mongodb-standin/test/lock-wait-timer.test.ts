/**
 * A write that waited for a transaction's lock with a maxTimeMS leaves no timer behind once the
 * transaction ended: before, the wait's timer stayed armed for the rest of maxTimeMS, holding
 * the process (jest: "did not exit one second after the test run").
 *
 * The test follows the wait's own timer, picked out by its duration, rather than counting every
 * timer of the process: the driver's monitors arm and clear timers of their own at any moment.
 */
import { createHook } from 'node:async_hooks';
import { MongoClient } from 'mongodb';
import { startStandin } from '../src';

const MAX_TIME_MS = 600_000;

/** Timers armed while `watching`, for at least `minimumMs`: the lock wait's, not the driver's. */
function longTimers(minimumMs: number) {
  const armed: NodeJS.Timeout[] = [];
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      const timer = resource as NodeJS.Timeout & { _idleTimeout?: number };
      if (type === 'Timeout' && (timer._idleTimeout ?? 0) >= minimumMs) armed.push(timer);
    },
  });
  return {
    armed,
    start: () => hook.enable(),
    stop: () => hook.disable(),
    /** Cleared timers get `_idleTimeout` -1 and `_destroyed`; a fired one cannot be, here. */
    stillArmed: () =>
      armed.filter((timer) => {
        const state = timer as unknown as { _idleTimeout: number; _destroyed: boolean };
        return state._idleTimeout !== -1 && !state._destroyed;
      }).length,
  };
}

test('a lock wait ended by the transaction clears its maxTimeMS timer', async () => {
  const standin = await startStandin({ log: () => undefined });
  const client = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 5_000 });
  const timers = longTimers(MAX_TIME_MS / 2);
  try {
    const collection = client.db('wait').collection<{ _id: number; n: number }>('c');
    await collection.insertOne({ _id: 1, n: 0 });
    const session = client.startSession();
    session.startTransaction();
    await collection.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session });
    timers.start();
    const waiting = collection.updateOne(
      { _id: 1 },
      { $inc: { n: 10 } },
      { maxTimeMS: MAX_TIME_MS },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    timers.stop();
    expect(timers.armed.length).toBeGreaterThan(0); // the wait's own
    expect(timers.stillArmed()).toBe(timers.armed.length);
    await session.abortTransaction();
    await expect(waiting).resolves.toMatchObject({ modifiedCount: 1 });
    expect(timers.stillArmed()).toBe(0);
    await session.endSession();
  } finally {
    timers.stop();
    await client.close();
    await standin.stop();
  }
});
