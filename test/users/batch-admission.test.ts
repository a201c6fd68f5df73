/**
 * `createUsers` batches are admitted up to `BATCH_USERS_IN_CREATION` users per process at
 * once (src/users/batch-admission.ts): concurrent batches beyond it wait their turn instead of all
 * being created at once, a waiting batch gives up at its deadline without writing, and every user
 * of every admitted batch is still created.
 */
import type { CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { DeadlineExceededError } from '../../src/request-deadline';
import { BATCH_USERS_IN_CREATION, USERS_PER_BATCH } from '../../src/limits';
import { BatchAdmission } from '../../src/users/batch-admission';
import { createdIds, names, UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

test('concurrent 1,000-user batches beyond the capacity wait: never more inserts in flight than fit', async () => {
  const { users, db } = await bed.fresh();
  const client = db.client;
  const inFlight = new Set<number>();
  let mostInFlight = 0;
  const started = (event: CommandStartedEvent) => {
    if (event.databaseName !== db.databaseName || event.commandName !== 'insert') return;
    inFlight.add(event.requestId);
    mostInFlight = Math.max(mostInFlight, inFlight.size);
  };
  const ended = (event: CommandSucceededEvent) => inFlight.delete(event.requestId);
  client.on('commandStarted', started);
  client.on('commandSucceeded', ended);
  client.on('commandFailed', ended);
  const batches = 3 * (BATCH_USERS_IN_CREATION / USERS_PER_BATCH);
  try {
    const results = await Promise.all(
      Array.from({ length: batches }, (_, b) =>
        users.createUsers(names(USERS_PER_BATCH, `batch ${b}`), 'COUNTER'),
      ),
    );
    const ids = results.flatMap(createdIds);
    expect(ids).toHaveLength(batches * USERS_PER_BATCH);
    expect(new Set(ids).size).toBe(ids.length);
  } finally {
    client.off('commandStarted', started);
    client.off('commandSucceeded', ended);
    client.off('commandFailed', ended);
  }
  expect(mostInFlight).toBeGreaterThanOrEqual(1);
  expect(mostInFlight).toBeLessThanOrEqual(BATCH_USERS_IN_CREATION / USERS_PER_BATCH);
});

test('a waiting batch gives up at its deadline without running, and its turn is not lost', async () => {
  const admission = new BatchAdmission(2);
  let finishFirst = (): void => undefined;
  const first = admission.run(2, undefined, () => new Promise<void>((r) => (finishFirst = r)));
  const controller = new AbortController();
  let lateRan = false;
  const waiting = admission.run(1, { signal: controller.signal }, async () => {
    lateRan = true;
  });
  controller.abort(new DeadlineExceededError(1));
  await expect(waiting).rejects.toBeInstanceOf(DeadlineExceededError);
  finishFirst();
  await first;
  // The whole capacity is free again: the abandoned turn was released as soon as it came.
  await expect(admission.run(2, undefined, async () => 'ran')).resolves.toBe('ran');
  expect(lateRan).toBe(false);
});

test('a batch whose deadline already passed does not wait or run', async () => {
  const admission = new BatchAdmission(1);
  const controller = new AbortController();
  controller.abort(new DeadlineExceededError(1));
  let ran = false;
  await expect(
    admission.run(1, { signal: controller.signal }, async () => {
      ran = true;
    }),
  ).rejects.toBeInstanceOf(DeadlineExceededError);
  expect(ran).toBe(false);
});
