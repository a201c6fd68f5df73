/**
 * Unique indexes that heal (issue 11, finding 5): after `users` is dropped (or loses its indexes)
 * under a running service, no two users ever share an email or an idempotency key, the indexes
 * come back before any user relying on them is acknowledged, and readiness says so meanwhile.
 * Driven through the real driver, and under concurrent load through the real HTTP server.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from 'mongodb';
import { ID_STRATEGIES } from '../../src/strategies';
import { startTestService } from '../support/service';
import { UsersTestBed } from './fixture';
import { strategySettings } from '../support/domain-options';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

/** Every value of `field` that more than one stored user has. */
async function sharedValues(db: Db, field: 'email' | 'idempotencyKey'): Promise<string[]> {
  const groups = await db
    .collection('users')
    .aggregate<{ _id: string; count: number }>([
      { $match: { [field]: { $type: 'string' } } },
      { $group: { _id: `$${field}`, count: { $sum: 1 } } },
      { $match: { count: { $gt: 1 } } },
    ])
    .toArray();
  return groups.map((group) => group._id);
}

async function uniqueIndexNames(db: Db): Promise<string[]> {
  const indexes = await db.collection('users').listIndexes().toArray();
  return indexes
    .filter((index) => index.unique === true)
    .map((index) => index.name)
    .sort();
}

describe.each(ID_STRATEGIES)('%s after users was dropped', (strategy) => {
  test('the same email is refused the second time, and the indexes are back', async () => {
    const { users, db } = await bed.fresh({
      strategySettings: strategySettings({ OPTIMISTIC_MAX_ATTEMPTS: '100' }),
    });
    await users.createUser({ name: 'Ann', email: 'ann@example.com' }, strategy);
    await db.collection('users').drop();
    await users.createUser({ name: 'Ann', email: 'ann@example.com' }, strategy);
    await expect(
      users.createUser({ name: 'Ann 2', email: 'ann@example.com' }, strategy),
    ).rejects.toMatchObject({ field: 'email' });
    expect(await sharedValues(db, 'email')).toEqual([]);
    expect(await uniqueIndexNames(db)).toEqual(['email_1', 'idempotencyKey_1']);
  });

  test('20 concurrent requests with one key create exactly one user', async () => {
    const { users, db } = await bed.fresh({
      strategySettings: strategySettings({ OPTIMISTIC_MAX_ATTEMPTS: '100' }),
    });
    await users.createUser({ name: 'warm-up', email: 'w@example.com' }, strategy);
    await db.collection('users').drop();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        users.createUser({ name: 'Ann', idempotencyKey: 'double-click' }, strategy),
      ),
    );
    expect(new Set(answers.map((a) => Number(a.user.id))).size).toBe(1);
    expect(await db.collection('users').countDocuments({ idempotencyKey: 'double-click' })).toBe(1);
  });
});

test('20 concurrent requests with one email after the indexes were dropped: one user', async () => {
  const { users, db } = await bed.fresh();
  await db.collection('users').dropIndexes();
  const settled = await Promise.allSettled(
    Array.from({ length: 20 }, (_, i) =>
      users.createUser({ name: `Ann ${i}`, email: 'ann@example.com' }, 'BLOCK'),
    ),
  );
  expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
  for (const s of settled) {
    if (s.status === 'rejected') expect(s.reason).toMatchObject({ field: 'email' });
  }
  expect(await db.collection('users').countDocuments({ email: 'ann@example.com' })).toBe(1);
});

test('readiness is false while the indexes are missing, and true once they are rebuilt', async () => {
  const { users, db } = await bed.fresh();
  expect(await users.indexesReady()).toBe(true);
  await db.collection('users').drop();
  expect(await users.indexesReady()).toBe(false);
  for (let i = 0; i < 50 && !(await users.indexesReady()); i += 1) await sleep(20);
  expect(await users.indexesReady()).toBe(true);
  expect(await uniqueIndexNames(db)).toEqual(['email_1', 'idempotencyKey_1']);
});

test('duplicates written by someone else keep the indexes down: refused as retryable, nothing kept', async () => {
  const { users, db } = await bed.fresh();
  await db.collection('users').drop();
  await db.collection('users').insertMany([
    { _id: 1001 as never, name: 'imported', email: 'dup@example.com' },
    { _id: 1002 as never, name: 'imported', email: 'dup@example.com' },
  ]);
  await expect(
    users.createUser({ name: 'Ann', email: 'ann@example.com' }, 'COUNTER'),
  ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true });
  expect(await db.collection('users').countDocuments({ email: 'ann@example.com' })).toBe(0);
  expect(await users.indexesReady()).toBe(false);
  // Users without email or key do not rely on those indexes.
  expect((await users.createUser({ name: 'Bob' }, 'COUNTER')).user.name).toBe('Bob');
}, 30_000);

test('under load through the HTTP server, dropping users three times never lets a duplicate in', async () => {
  const service = await startTestService({ env: { OPTIMISTIC_MAX_ATTEMPTS: '50' } });
  const db = service.client.db(service.dbName);
  const emails = Array.from({ length: 8 }, (_, i) => `shared${i}@example.com`);
  const keys = Array.from({ length: 12 }, () => randomUUID());
  let running = true;
  let acknowledged = 0;
  const client = async (worker: number) => {
    for (let i = 0; running; i += 1) {
      const pick = worker * 31 + i * 7;
      const input =
        i % 2 === 0
          ? { name: `w${worker}`, email: emails[pick % emails.length] }
          : { name: 'keyed', idempotencyKey: keys[pick % keys.length] };
      const { body } = await service.graphql(
        'mutation ($input: CreateUserInput!, $strategy: IdStrategy) { createUser(input: $input, strategy: $strategy) { user { name } } }',
        { input, strategy: ID_STRATEGIES[pick % ID_STRATEGIES.length] },
      );
      if (body.data?.createUser?.user) acknowledged += 1;
    }
  };
  try {
    const clients = Array.from({ length: 12 }, (_, worker) => client(worker));
    for (let drop = 0; drop < 3; drop += 1) {
      await sleep(400);
      await db
        .collection('users')
        .drop()
        .catch(() => undefined);
    }
    await sleep(400);
    running = false;
    await Promise.all(clients);
    expect(acknowledged).toBeGreaterThan(0);
    expect(await sharedValues(db, 'email')).toEqual([]);
    expect(await sharedValues(db, 'idempotencyKey')).toEqual([]);
    for (let i = 0; i < 50 && !(await service.components.users.indexesReady()); i += 1) {
      await sleep(20);
    }
    expect(await uniqueIndexNames(db)).toEqual(['email_1', 'idempotencyKey_1']);
  } finally {
    running = false;
    await service.stop();
  }
}, 120_000);
