import { DuplicateEmailError, UnknownInviterError } from '../../src/users';
import { COUNTER_FED_STRATEGIES, ID_STRATEGIES, STRATEGIES } from '../../src/strategies';
import { createdIds, idsOf, names, UsersTestBed } from './fixture';
import { strategySettings } from '../support/domain-options';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

/** Strategies that take ids, then insert: a refused or withdrawn item may leave a gap. */
const TAKING_THEN_INSERTING = COUNTER_FED_STRATEGIES.filter(
  (strategy) => !STRATEGIES[strategy].properties.leavesNoHoles,
);

describe.each(TAKING_THEN_INSERTING)('%s createUsers', (strategy) => {
  test('creates 1,000 users with one allocation and one insert; duplicate emails fail alone', async () => {
    const { users, commandsDuring } = await bed.fresh();
    await users.createUser({ name: 'stored', email: 'taken@example.com' }, strategy);
    const inputs = Array.from({ length: 1000 }, (_, i) => ({
      name: `user ${i}`,
      email: `user${i}@example.com`,
    }));
    inputs[10].email = 'user3@example.com'; // repeats an earlier item of the batch
    inputs[999].email = 'USER3@example.com';
    inputs[500].email = 'taken@example.com'; // repeats a stored user

    let results: Awaited<ReturnType<typeof users.createUsers>> = [];
    const commands = await commandsDuring(async () => {
      results = await users.createUsers(inputs, strategy);
    });

    // The target is at most 3: the third confirms the unique indexes the emails rely on.
    expect(commands).toEqual(['findAndModify', 'insert', 'listIndexes']);
    expect(results).toHaveLength(1000);
    for (const index of [10, 999, 500]) {
      expect(results[index]).toEqual({ error: expect.any(DuplicateEmailError) });
      expect(results[index]).toMatchObject({ error: { code: 'EMAIL_TAKEN', field: 'email' } });
    }
    const ids = createdIds(results);
    expect(ids).toHaveLength(997);
    expect(new Set(ids).size).toBe(997);
    results.forEach((result, index) => {
      if ('user' in result) expect(result.user.name).toBe(`user ${index}`);
    });
  });

  test('after drift the batch keeps input order: items after a taken id are issued again', async () => {
    const { users, sequences, stats, db } = await bed.fresh();
    for (const input of names(3, 'optimistic')) await users.createUser(input, 'OPTIMISTIC_LOOP');
    const results = await users.createUsers(names(10), strategy);
    const ids = createdIds(results);
    expect(ids).toHaveLength(10);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set([1, 2, 3, ...ids]).size).toBe(13);
    expect(await db.collection('users').countDocuments()).toBe(13);
    expect(await sequences.peekNext({ name: 'userid' })).toBeGreaterThan(Math.max(...ids));
    expect(stats.snapshot().find((s) => s.strategy === strategy)).toMatchObject({
      usersCreated: 10,
      insertAttempts: 20,
      duplicateKeyRetries: 3,
      counterRepairs: 1,
    });
  });

  test('after drift, items with an idempotency key keep the id they were stored under', async () => {
    const { users } = await bed.fresh();
    for (const input of names(2, 'optimistic')) await users.createUser(input, 'OPTIMISTIC_LOOP');
    const results = await users.createUsers(
      [{ name: 'a' }, { name: 'b' }, { name: 'keyed', idempotencyKey: 'k' }, { name: 'd' }],
      strategy,
    );
    const ids = createdIds(results);
    expect(ids[2]).toBe(3);
    expect(ids[0]).toBeLessThan(ids[1]);
    expect(ids[1]).toBeLessThan(ids[3]);
    expect(ids[0]).toBeGreaterThan(3);
  });
});

describe.each(ID_STRATEGIES)('%s createUsers', (strategy) => {
  test('fails a bad item alone, without spending an id on it, in input order', async () => {
    const { users } = await bed.fresh();
    const results = await users.createUsers(
      [
        { name: 'first' },
        { name: '' },
        { name: 'second', invitedById: '77' },
        { name: 'third', email: 'not an email' },
        { name: 'fourth' },
      ],
      strategy,
    );
    expect(results.map((r) => ('user' in r ? r.user.name : r.error.field))).toEqual([
      'first',
      'name',
      'invitedById',
      'email',
      'fourth',
    ]);
    expect(results[2]).toEqual({ error: expect.any(UnknownInviterError) });
    expect(createdIds(results)).toEqual([1, 2]);
  });

  test('batches all inviter lookups of a batch into one find', async () => {
    const { users, commandsDuring } = await bed.fresh();
    const inviters = await users.createUsers(names(5, 'inviter'), strategy);
    const inputs = Array.from({ length: 50 }, (_, i) => ({
      name: `invited ${i}`,
      invitedById: String((i % 5) + 1),
    }));
    let results: Awaited<ReturnType<typeof users.createUsers>> = [];
    const commands = await commandsDuring(async () => {
      results = await users.createUsers(inputs, strategy);
    });
    expect(createdIds(inviters)).toEqual([1, 2, 3, 4, 5]);
    expect(commands.filter((name) => name === 'find')).toHaveLength(
      STRATEGIES[strategy].properties.fedByCounter ? 1 : 2,
    );
    expect(commands.filter((name) => name === 'insert')).toHaveLength(1);
    expect(createdIds(results)).toEqual(Array.from({ length: 50 }, (_, i) => i + 6));
  });
});

test('OPTIMISTIC_LOOP createUsers takes max+1..max+n and retries only colliding items', async () => {
  const { users, db } = await bed.fresh({
    strategySettings: strategySettings({ OPTIMISTIC_MAX_ATTEMPTS: '50' }),
  });
  await users.createUsers(names(5, 'before'), 'OPTIMISTIC_LOOP');
  const [batch, ...singles] = await Promise.all([
    users.createUsers(names(200, 'batch'), 'OPTIMISTIC_LOOP'),
    ...names(20, 'single').map((input) => users.createUser(input, 'OPTIMISTIC_LOOP')),
  ]);
  const ids = [...createdIds(batch), ...idsOf(singles.map((s) => s.user))];
  expect(ids).toHaveLength(220);
  expect(new Set(ids).size).toBe(220);
  expect(Math.min(...ids)).toBe(6);
  expect(await db.collection('users').countDocuments()).toBe(225);
});
