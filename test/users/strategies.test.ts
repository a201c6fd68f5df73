import { Long } from 'bson';
import { ID_STRATEGIES, type IdStrategy } from '../../src/strategies';
import { DuplicateEmailError, IdContentionError, type User } from '../../src/users';
import { idsOf, names, UsersTestBed } from './fixture';
import { strategySettings } from '../support/domain-options';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

async function createInOrder(
  create: (input: { name: string }) => Promise<{ user: User }>,
  count: number,
) {
  const created = [];
  for (const input of names(count)) created.push((await create(input)).user);
  return created;
}

describe.each(ID_STRATEGIES)('%s', (strategy: IdStrategy) => {
  test('issues consecutive ids from 1 on an empty collection', async () => {
    const { users } = await bed.fresh();
    const created = await createInOrder((input) => users.createUser(input, strategy), 5);
    expect(idsOf(created)).toEqual([1, 2, 3, 4, 5]);
    expect(created.every((user) => user.createdWith === strategy)).toBe(true);
    expect(await users.maxId()).toBe(5);
  });

  test('refuses a second user with the same email as EMAIL_TAKEN on email, storing nothing', async () => {
    const { users, db } = await bed.fresh();
    await users.createUser({ name: 'Ann', email: 'ann@example.com' }, strategy);
    const second = users.createUser({ name: 'Other Ann', email: 'ANN@example.com ' }, strategy);
    await expect(second).rejects.toBeInstanceOf(DuplicateEmailError);
    await expect(second).rejects.toMatchObject({ code: 'EMAIL_TAKEN', field: 'email' });
    expect(await db.collection('users').countDocuments()).toBe(1);
  });

  test('stores the id as Int64 above 2^31 and reads it back unchanged', async () => {
    const { users, sequences, db } = await bed.fresh();
    const above = 2 ** 31 + 10;
    // An imported user at `above`, and the counter moved there as an admin would.
    await db.collection('users').insertOne({
      _id: Long.fromNumber(above) as never,
      name: 'imported',
      createdWith: 'COUNTER',
    });
    await sequences.setValue({ name: 'userid' }, above);
    const { user } = await users.createUser({ name: 'above 2^31' }, strategy);
    expect(Number(user.id)).toBe(above + 1);
    const raw = await db
      .collection('users', { promoteLongs: false })
      .findOne({ _id: Long.fromNumber(above + 1) as never });
    expect(raw?._id).toBeInstanceOf(Long);
    expect((raw?._id as unknown as Long).toString()).toBe(String(above + 1));
    const read = await users.findById(String(above + 1));
    expect(read?.id).toBe(String(above + 1));
  });
});

describe('COUNTER', () => {
  test('costs exactly 2 commands per user once the counter exists', async () => {
    const { users, commandsDuring } = await bed.fresh();
    await users.createUser({ name: 'warm-up' }, 'COUNTER');
    const commands = await commandsDuring(() =>
      createInOrder((input) => users.createUser(input, 'COUNTER'), 10),
    );
    expect(commands).toHaveLength(20);
    expect(commands.filter((name) => name === 'findAndModify')).toHaveLength(10);
    expect(commands.filter((name) => name === 'insert')).toHaveLength(10);
  });
});

describe('BLOCK', () => {
  test('takes one block of ids for many users: 10 users cost 11 commands', async () => {
    const { users, commandsDuring } = await bed.fresh();
    const commands = await commandsDuring(() =>
      createInOrder((input) => users.createUser(input, 'BLOCK'), 10),
    );
    expect(commands.filter((name) => name === 'findAndModify')).toHaveLength(1);
    expect(commands.filter((name) => name === 'insert')).toHaveLength(10);
  });
  test('costs at most 1.02 commands per user with the default block under concurrency', async () => {
    const { users, stats } = await bed.fresh();
    const created = await Promise.all(names(300).map((input) => users.createUser(input, 'BLOCK')));
    expect(new Set(idsOf(created.map((c) => c.user))).size).toBe(300);
    const snapshot = stats.snapshot().find((s) => s.strategy === 'BLOCK');
    expect(snapshot?.usersCreated).toBe(300);
    expect(snapshot?.commandsPerUser).toBeLessThanOrEqual(1.02);
  });
});

describe('OPTIMISTIC_LOOP', () => {
  test('costs 2 commands per user without concurrency', async () => {
    const { users, commandsDuring, stats } = await bed.fresh();
    const commands = await commandsDuring(() =>
      createInOrder((input) => users.createUser(input, 'OPTIMISTIC_LOOP'), 10),
    );
    expect(commands).toEqual(Array.from({ length: 10 }, () => ['find', 'insert']).flat());
    const snapshot = stats.snapshot().find((s) => s.strategy === 'OPTIMISTIC_LOOP');
    expect(snapshot).toMatchObject({ usersCreated: 10, insertAttempts: 10, commandsPerUser: 2 });
  });

  test('gives up after its attempts with a retryable ID_CONTENTION, storing no duplicate', async () => {
    const { users, db } = await bed.fresh({
      strategySettings: strategySettings({ OPTIMISTIC_MAX_ATTEMPTS: '1' }),
    });
    const settled = await Promise.allSettled(
      names(40).map((input) => users.createUser(input, 'OPTIMISTIC_LOOP')),
    );
    const refused = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
    const created = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.user] : []));
    expect(refused.length).toBeGreaterThan(0);
    for (const reason of refused) {
      expect(reason).toBeInstanceOf(IdContentionError);
      expect(reason).toMatchObject({ code: 'ID_CONTENTION', retryable: true });
    }
    expect(new Set(idsOf(created)).size).toBe(created.length);
    expect(await db.collection('users').countDocuments()).toBe(created.length);
  });
});

// COUNTER's first id after the repair is max + 1; BLOCK abandons its block (1..100, a gap) and
// takes the next one from the counter.
describe.each([
  ['COUNTER', 4],
  ['BLOCK', 101],
] as const)('%s behind the largest stored _id', (strategy, firstFreeId) => {
  test('repairs the counter and retries instead of failing or duplicating', async () => {
    const { users, sequences, stats } = await bed.fresh();
    await createInOrder((input) => users.createUser(input, 'OPTIMISTIC_LOOP'), 3);
    expect(await sequences.peekNext({ name: 'userid' })).toBe(1);

    const { user, attempts } = await users.createUser({ name: 'after optimistic' }, strategy);
    expect(Number(user.id)).toBe(firstFreeId);
    expect(attempts).toBe(2);
    const next = await users.createUser({ name: 'steady again' }, strategy);
    expect(Number(next.user.id)).toBe(firstFreeId + 1);
    expect(next.attempts).toBe(1);
    expect(stats.snapshot().find((s) => s.strategy === strategy)).toMatchObject({
      usersCreated: 2,
      insertAttempts: 3,
      duplicateKeyRetries: 1,
      counterRepairs: 1,
    });
  });
});
