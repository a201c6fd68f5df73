import { ID_STRATEGIES } from '../../src/strategies';
import { IdempotencyKeyReusedError } from '../../src/users';
import { UsersTestBed } from './fixture';
import { strategySettings } from '../support/domain-options';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

describe.each(ID_STRATEGIES)('%s with an idempotency key', (strategy) => {
  test('a retry returns the first user, makes no attempt and consumes no id', async () => {
    const { users, db } = await bed.fresh();
    const input = { name: 'Ann', email: 'ann@example.com', idempotencyKey: 'signup-1' };
    const first = await users.createUser(input, strategy);
    const retry = await users.createUser({ ...input, name: ' Ann ' }, strategy);
    expect(first).toMatchObject({ attempts: 1, replayed: false });
    expect(retry).toMatchObject({ attempts: 0, replayed: true });
    expect(retry.user.id).toEqual(first.user.id);
    expect(await db.collection('users').countDocuments()).toBe(1);
    const next = await users.createUser({ name: 'Bob' }, strategy);
    expect(Number(next.user.id)).toBe(2);
  });

  test('the same key with different input is refused on idempotencyKey', async () => {
    const { users, db } = await bed.fresh();
    await users.createUser({ name: 'Ann', idempotencyKey: 'k' }, strategy);
    const other = users.createUser({ name: 'Bob', idempotencyKey: 'k' }, strategy);
    await expect(other).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    await expect(other).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      field: 'idempotencyKey',
    });
    expect(await db.collection('users').countDocuments()).toBe(1);
  });

  test('30 concurrent first requests with one key create exactly one user', async () => {
    const { users, db } = await bed.fresh({
      strategySettings: strategySettings({ OPTIMISTIC_MAX_ATTEMPTS: '100' }),
    });
    const input = { name: 'Ann', email: 'ann@example.com', idempotencyKey: 'double-click' };
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => users.createUser(input, strategy)),
    );
    expect(new Set(answers.map((a) => Number(a.user.id))).size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    expect(await db.collection('users').countDocuments()).toBe(1);
  });
});

test('a retry under another strategy is still a replay of the same request', async () => {
  const { users } = await bed.fresh();
  const first = await users.createUser({ name: 'Ann', idempotencyKey: 'k' }, 'COUNTER');
  const retry = await users.createUser({ name: 'Ann', idempotencyKey: 'k' }, 'OPTIMISTIC_LOOP');
  expect(retry).toMatchObject({ replayed: true, attempts: 0 });
  expect(retry.user.id).toEqual(first.user.id);
});

test('createUsers replays stored keys and repeated keys inside the batch', async () => {
  const { users, db } = await bed.fresh();
  const stored = await users.createUser({ name: 'Ann', idempotencyKey: 'a' }, 'COUNTER');
  const results = await users.createUsers(
    [
      { name: 'Ann', idempotencyKey: 'a' }, // replay of a stored request
      { name: 'Bob', idempotencyKey: 'b' }, // new
      { name: 'Bob', idempotencyKey: 'b' }, // repeats the item before
      { name: 'Carl', idempotencyKey: 'b' }, // same key, other input
      { name: 'Dora', idempotencyKey: 'a' }, // stored key, other input
    ],
    'BLOCK',
  );
  expect(results[0]).toEqual({
    user: expect.objectContaining({ id: stored.user.id }),
    replayed: true,
  });
  expect(results[1]).toMatchObject({ replayed: false });
  expect(results[2]).toMatchObject({ replayed: true });
  if ('user' in results[1] && 'user' in results[2]) {
    expect(results[2].user.id).toEqual(results[1].user.id);
  }
  expect(results[3]).toEqual({ error: expect.any(IdempotencyKeyReusedError) });
  expect(results[4]).toEqual({ error: expect.any(IdempotencyKeyReusedError) });
  expect(await db.collection('users').countDocuments()).toBe(2);
});
