/**
 * Issue 3: refused input never consumes a counter value. A duplicate email is only found by the
 * unique index at insert time, after the id was taken, so the id is given back: COUNTER while it is
 * still the newest value of the counter, BLOCK always (to its own allocator).
 */
import { COUNTER_FED_STRATEGIES, STRATEGIES } from '../../src/strategies';
import { DuplicateEmailError } from '../../src/users';
import { createdIds, idsOf, UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

/** A refused id is given back where these strategies can: the next create gets it. */
const GIVING_BACK = COUNTER_FED_STRATEGIES.filter(
  (strategy) => STRATEGIES[strategy].properties.consecutiveIds,
);

describe.each(GIVING_BACK)('%s', (strategy) => {
  test('sequential creates with a duplicate email in between get consecutive ids', async () => {
    const { users } = await bed.fresh();
    const ann = await users.createUser({ name: 'Ann', email: 'ann@example.com' }, strategy);
    await expect(
      users.createUser({ name: 'Ann again', email: 'ann@example.com' }, strategy),
    ).rejects.toBeInstanceOf(DuplicateEmailError);
    await expect(
      users.createUser({ name: 'Ann twice', email: 'ANN@example.com' }, strategy),
    ).rejects.toMatchObject({ code: 'EMAIL_TAKEN', field: 'email' });
    const bob = await users.createUser({ name: 'Bob', email: 'bob@example.com' }, strategy);
    const cid = await users.createUser({ name: 'Cid' }, strategy);
    expect(idsOf([ann.user, bob.user, cid.user])).toEqual([1, 2, 3]);
  });

  test('a batch whose refused items come last gives their ids back to the next create', async () => {
    const { users } = await bed.fresh();
    await users.createUser({ name: 'stored', email: 'taken@example.com' }, strategy);
    const results = await users.createUsers(
      [
        { name: 'a' },
        { name: 'b' },
        { name: 'c', email: 'taken@example.com' },
        { name: 'd', email: 'TAKEN@example.com' },
      ],
      strategy,
    );
    expect(createdIds(results)).toEqual([2, 3]);
    expect(results.slice(2)).toEqual([
      { error: expect.any(DuplicateEmailError) },
      { error: expect.any(DuplicateEmailError) },
    ]);
    expect(Number((await users.createUser({ name: 'next' }, strategy)).user.id)).toBe(4);
  });

  test('100 concurrent creates where half repeat an email: distinct ids, and the counter stays above every stored id', async () => {
    const { users, sequences, db } = await bed.fresh();
    // Pairs share an email, so one of each pair is refused while the other's insert is in flight.
    const settled = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        users.createUser(
          { name: `user ${i}`, email: `pair${Math.floor(i / 2)}@example.com` },
          strategy,
        ),
      ),
    );
    const created = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.user] : []));
    const refused = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
    expect(created).toHaveLength(50);
    for (const reason of refused) expect(reason).toBeInstanceOf(DuplicateEmailError);
    const ids = idsOf(created);
    expect(new Set(ids).size).toBe(50);
    const stored = await db.collection('users').find({}).toArray();
    expect(stored).toHaveLength(50);
    const maxStored = Math.max(...stored.map((doc) => Number(doc._id)));
    expect(await sequences.peekNext({ name: 'userid' })).toBeGreaterThan(maxStored);
    const next = await users.createUser({ name: 'after' }, 'COUNTER');
    expect(Number(next.user.id)).toBeGreaterThan(maxStored);
    expect(next.attempts).toBe(1);
  });
});

describe('COUNTER', () => {
  test('the refused create spends one update giving its id back; a successful one still costs 2 commands', async () => {
    const { users, commandsDuring } = await bed.fresh();
    await users.createUser({ name: 'Ann', email: 'ann@example.com' }, 'COUNTER');
    const refused = await commandsDuring(() =>
      expect(
        users.createUser({ name: 'Ann again', email: 'ann@example.com' }, 'COUNTER'),
      ).rejects.toBeInstanceOf(DuplicateEmailError),
    );
    expect(refused).toEqual(['findAndModify', 'insert', 'update']);
    const created = await commandsDuring(() => users.createUser({ name: 'Bob' }, 'COUNTER'));
    expect(created).toEqual(['findAndModify', 'insert']);
  });

  test('an id refused inside a batch stays a gap: only a trailing run can be given back', async () => {
    const { users } = await bed.fresh();
    await users.createUser({ name: 'stored', email: 'taken@example.com' }, 'COUNTER');
    const results = await users.createUsers(
      [{ name: 'a' }, { name: 'b', email: 'taken@example.com' }, { name: 'c' }],
      'COUNTER',
    );
    expect(createdIds(results)).toEqual([2, 4]);
    expect(Number((await users.createUser({ name: 'next' }, 'COUNTER')).user.id)).toBe(5);
  });

  test('an id is not given back once another process took a later one: a gap, never a repeat', async () => {
    const { users, otherProcess, sequences } = await bed.fresh();
    const other = await otherProcess();
    await users.createUser({ name: 'Ann', email: 'ann@example.com' }, 'COUNTER');
    // The other process creates a user between the refused insert and its give-back.
    const release = sequences.releaseUnused.bind(sequences);
    let bobId = 0;
    jest.spyOn(sequences, 'releaseUnused').mockImplementationOnce(async (...args) => {
      bobId = Number((await other.createUser({ name: 'Bob' }, 'COUNTER')).user.id);
      return release(...args);
    });
    await expect(
      users.createUser({ name: 'Ann again', email: 'ann@example.com' }, 'COUNTER'),
    ).rejects.toBeInstanceOf(DuplicateEmailError);
    const cid = await users.createUser({ name: 'Cid' }, 'COUNTER');
    expect([bobId, Number(cid.user.id)]).toEqual([3, 4]);
    expect(cid.attempts).toBe(1);
  });
});

describe('BLOCK', () => {
  test('a refused create gives its id back without a command, and an id refused inside a batch is reused', async () => {
    const { users, commandsDuring } = await bed.fresh();
    await users.createUser({ name: 'Ann', email: 'ann@example.com' }, 'BLOCK');
    const refused = await commandsDuring(() =>
      expect(
        users.createUser({ name: 'Ann again', email: 'ann@example.com' }, 'BLOCK'),
      ).rejects.toBeInstanceOf(DuplicateEmailError),
    );
    expect(refused).toEqual(['insert']);
    const batch = await users.createUsers(
      [{ name: 'a' }, { name: 'b', email: 'ann@example.com' }, { name: 'c' }],
      'BLOCK',
    );
    expect(createdIds(batch)).toEqual([2, 4]);
    expect(Number((await users.createUser({ name: 'next' }, 'BLOCK')).user.id)).toBe(3);
  });
});
