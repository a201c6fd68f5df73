/**
 * Faults on the user insert and on the index check after it, injected with MongoDB's `failCommand`
 * fail point. Fail points are server-wide, so these run on a private stand-in where nothing else
 * can be hit.
 */
import { MongoClient } from 'mongodb';
import { startStandin, type RunningStandin } from 'mongodb-standin';
import { DuplicateEmailError } from '../../src/users';
import { ID_STRATEGIES } from '../../src/strategies';
import { strategySettings } from '../support/domain-options';
import { componentsOn } from './fixture';

let server: RunningStandin;
let client: MongoClient;
beforeAll(async () => {
  server = await startStandin({ log: () => undefined });
  client = await MongoClient.connect(server.uri, { serverSelectionTimeoutMS: 5_000 });
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

async function failNextInserts(times: number, errorCode: number) {
  await client.db('admin').command({
    configureFailPoint: 'failCommand',
    mode: { times },
    data: { failCommands: ['insert'], errorCode },
  });
}

function usersIn(dbName: string) {
  const db = client.db(dbName);
  const { users } = componentsOn(db, {
    strategySettings: strategySettings({ ID_BLOCK_SIZE: '10' }),
  });
  return { db, users };
}

test.each(ID_STRATEGIES)(
  '%s retries an E11000 that names no index as a taken id, and stores the user once',
  async (strategy) => {
    const { db, users } = usersIn(`unnamed_duplicate_${strategy}`);
    await users.ensureIndexes();
    await failNextInserts(2, 11000);
    const { user, attempts } = await users.createUser(
      { name: 'Ann', email: 'ann@example.com' },
      strategy,
    );
    expect(attempts).toBe(3);
    expect(await db.collection('users').countDocuments()).toBe(1);
    expect((await users.findById(user.id))?.email).toBe('ann@example.com');
  },
);

test('an insert failing for another reason fails the request with the driver error, not a retry', async () => {
  const { db, users } = usersIn('shutdown_on_insert');
  await users.ensureIndexes();
  // twice: on a replica set the driver retries a RetryableWriteError (91 is one) once by itself
  await failNextInserts(2, 91);
  await expect(users.createUser({ name: 'Ann' }, 'COUNTER')).rejects.toMatchObject({ code: 91 });
  expect(await db.collection('users').countDocuments()).toBe(0);
  expect((await users.createUser({ name: 'Ann' }, 'COUNTER')).attempts).toBe(1);
});

test('a give-back the database fails leaves a gap, and the answer stays the duplicate email', async () => {
  const { users } = usersIn('give_back_fails');
  await users.ensureIndexes();
  await users.createUser({ name: 'Ann', email: 'ann@example.com' }, 'COUNTER');
  await client.db('admin').command({
    configureFailPoint: 'failCommand',
    mode: { times: 1 },
    data: { failCommands: ['update'], errorCode: 50 }, // MaxTimeMSExpired
  });
  await expect(
    users.createUser({ name: 'Ann again', email: 'ann@example.com' }, 'COUNTER'),
  ).rejects.toBeInstanceOf(DuplicateEmailError);
  expect(Number((await users.createUser({ name: 'Bob' }, 'COUNTER')).user.id)).toBe(3);
});

test('a shared index check that fails fails every creation that shared it, none acknowledged', async () => {
  const { users } = usersIn('index_check_fails');
  await users.ensureIndexes();
  await users.createUser({ name: 'warm-up' }, 'COUNTER');
  await client.db('admin').command({
    configureFailPoint: 'failCommand',
    mode: 'alwaysOn',
    data: { failCommands: ['listIndexes'], errorCode: 50 }, // MaxTimeMSExpired: never retried
  });
  let settled: PromiseSettledResult<unknown>[];
  let checks: number;
  try {
    settled = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        users.createUser({ name: `user ${i}`, email: `user${i}@example.com` }, 'COUNTER'),
      ),
    );
  } finally {
    const cleared = await client
      .db('admin')
      .command({ configureFailPoint: 'failCommand', mode: 'off' });
    checks = Number(cleared.count);
  }
  expect(settled.map((s) => (s.status === 'rejected' ? s.reason : 'acknowledged'))).toEqual(
    Array.from({ length: 20 }, () => expect.objectContaining({ code: 50 })),
  );
  expect(checks).toBeGreaterThan(0);
  expect(checks).toBeLessThan(20);
});
