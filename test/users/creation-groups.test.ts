/**
 * Grouped creations (`groupsCreations`): concurrent `createUser`s of a strategy that groups share
 * one insert (BLOCK: src/users/insert-groups.ts; TRANSACTION: one transaction), with every promise
 * of a creation alone: each refused item is refused alone and gives its id back, a taken `_id`
 * costs its own creation a retry, idempotency keys replay, and a deadline that fires before the
 * insert writes nothing for its creation. Through the real components and driver, with real
 * concurrency; commands counted from the driver's command monitoring.
 */
import type { CommandStartedEvent } from 'mongodb';
import { ID_STRATEGIES, STRATEGIES } from '../../src/strategies';
import { patientUsersSettings, strategySettings } from '../support/domain-options';
import { idsOf, names, storedIds, upTo, UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

const count = (commands: string[], name: string) => commands.filter((c) => c === name).length;

const CONCURRENT = 32;

test.each(ID_STRATEGIES)(
  `%s: ${CONCURRENT} concurrent creations share inserts exactly when the strategy groups creations`,
  async (strategy) => {
    const { users, db, commandsDuring } = await bed.fresh(patientUsersSettings);
    let created: Array<{ user: { id: string } }> = [];
    const commands = await commandsDuring(async () => {
      created = await Promise.all(
        names(CONCURRENT).map((input) => users.createUser(input, strategy)),
      );
    });
    const ids = idsOf(created.map((c) => c.user));
    expect(new Set(ids).size).toBe(CONCURRENT);
    expect(await storedIds(db)).toEqual([...ids].sort((a, b) => a - b));
    const inserts = count(commands, 'insert');
    if (STRATEGIES[strategy].properties.groupsCreations) {
      // All arrived in one turn of the event loop: they form one group, the first does not go
      // alone ahead of the others.
      expect(inserts).toBe(1);
    } else {
      expect(inserts).toBeGreaterThanOrEqual(CONCURRENT);
    }
  },
  120_000,
);

describe('BLOCK', () => {
  const STRATEGY = 'BLOCK';

  test('64 concurrent creations cost at most 0.1 commands per user, counted and in the stats', async () => {
    const { users, db, stats, commandsDuring } = await bed.fresh();
    let created: Array<{ user: { id: string } }> = [];
    const commands = await commandsDuring(async () => {
      created = await Promise.all(names(64).map((input) => users.createUser(input, STRATEGY)));
    });
    const ids = idsOf(created.map((c) => c.user));
    expect(new Set(ids).size).toBe(64);
    expect(await storedIds(db)).toEqual([...ids].sort((a, b) => a - b));
    expect(commands.length / 64).toBeLessThanOrEqual(0.1);
    const counted = stats.snapshot().find((s) => s.strategy === STRATEGY);
    expect(counted).toMatchObject({ usersCreated: 64, insertAttempts: 64 });
    expect(counted?.commandsPerUser).toBeLessThanOrEqual(0.1);
    // What the stats counted is what the driver sent.
    expect((counted?.commandsPerUser ?? 0) * 64).toBeCloseTo(commands.length, 6);
  });

  test('a taken email is refused alone: the others of its group are stored, and its id goes back', async () => {
    const { users, db, commandsDuring } = await bed.fresh();
    let settled: PromiseSettledResult<{ user: { id: string; name: string } }>[] = [];
    const commands = await commandsDuring(async () => {
      settled = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          users.createUser({ name: `user ${i}`, email: `dup${i % 30}@example.com` }, STRATEGY),
        ),
      );
    });
    const refused = settled.flatMap((s, i) =>
      s.status === 'rejected' ? [[i, s.reason.code]] : [],
    );
    // The unordered insert stores the first of two equal emails, in arrival order.
    expect(refused).toEqual(upTo(10).map((k) => [29 + k, 'EMAIL_TAKEN']));
    const created = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.user] : []));
    expect(created.map((user) => user.name)).toEqual(upTo(30).map((k) => `user ${k - 1}`));
    expect(count(commands, 'insert')).toBeLessThanOrEqual(3);
    // The refused ids went back to the block: the next ten creations take them, no hole is left.
    for (const input of names(10, 'after')) await users.createUser(input, STRATEGY);
    expect(await storedIds(db)).toEqual(upTo(40));
  });

  test('two creations with one idempotency key in one group: one user, the other a replay', async () => {
    const { users, db, commandsSent } = await bed.fresh();
    type Created = { user: { id: string }; replayed: boolean };
    let answers: Created[] = [];
    const events = await commandsSent(async () => {
      // A creation without a key goes first; the keyed ones read their keys meanwhile and wait
      // for its insert, so they share the next one.
      const first = users.createUser({ name: 'first' }, STRATEGY);
      answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          users.createUser({ name: `keyed ${i >> 1}`, idempotencyKey: `key-${i >> 1}` }, STRATEGY),
        ),
      );
      await first;
    });
    for (let pair = 0; pair < 10; pair += 1) {
      const [a, b] = [answers[2 * pair], answers[2 * pair + 1]];
      expect(a.user.id).toBe(b.user.id);
      expect([a.replayed, b.replayed].sort()).toEqual([false, true]);
    }
    expect(await db.collection('users').countDocuments()).toBe(11);
    // At least one insert carried both documents of a key: the pair shared a group.
    const sharedInsert = events.some((event) => {
      if (event.commandName !== 'insert') return false;
      const keys = (event.command.documents as Array<{ idempotencyKey?: string }>).map(
        (doc) => doc.idempotencyKey,
      );
      return keys.some((key, i) => key !== undefined && keys.indexOf(key) !== i);
    });
    expect(sharedInsert).toBe(true);
  });

  test("a taken _id in a group costs only its own creation a retry, after the counter's repair", async () => {
    const { users, db, stats } = await bed.fresh();
    await db
      .collection<{ _id: number; name: string }>('users')
      .insertOne({ _id: 5, name: 'foreign' });
    const created = await Promise.all(names(10).map((input) => users.createUser(input, STRATEGY)));
    const ids = idsOf(created.map((c) => c.user));
    expect(new Set(ids).size).toBe(10);
    expect(ids).not.toContain(5);
    expect(created.map((c) => c.attempts).sort()).toEqual([...Array(9).fill(1), 2]);
    // The creation that met 5 took an id of a new block (the old one was dropped, 6 to 100 gaps).
    expect(Math.max(...ids)).toBe(101);
    expect(stats.snapshot().find((s) => s.strategy === STRATEGY)).toMatchObject({
      usersCreated: 10,
      insertAttempts: 11,
      duplicateKeyRetries: 1,
      counterRepairs: 1,
    });
    expect(await db.collection('users').countDocuments({ name: 'foreign' })).toBe(1);
  });

  test('a deadline that fires while a creation waits for its group: nothing stored for it, no id taken', async () => {
    const { users, db } = await bed.fresh();
    const deadline = new AbortController();
    const before = users.createUser({ name: 'first' }, STRATEGY);
    const late = users.createUser({ name: 'late' }, STRATEGY, { signal: deadline.signal });
    const after = names(5).map((input) => users.createUser(input, STRATEGY));
    deadline.abort(new Error('deadline'));
    await expect(late).rejects.toThrow('deadline');
    await Promise.all([before, ...after]);
    expect(await storedIds(db)).toEqual(upTo(6));
    expect(await db.collection('users').countDocuments({ name: 'late' })).toBe(0);
  });

  test("a deadline that fires while the group's ids are taken: nothing sent for it, its id goes back", async () => {
    // Blocks of one, so the second group's take waits for an allocation of its own.
    const { users, db } = await bed.fresh({
      strategySettings: strategySettings({ ID_BLOCK_SIZE: '1' }),
    });
    const deadline = new AbortController();
    let allocations = 0;
    let firstStarted = () => {};
    const firstAllocation = new Promise<void>((resolve) => (firstStarted = resolve));
    const inserted: string[] = [];
    const watch = (event: CommandStartedEvent) => {
      if (event.databaseName !== db.databaseName) return;
      if (event.commandName === 'insert') {
        for (const doc of event.command.documents as Array<{ name: string }>)
          inserted.push(doc.name);
      }
      if (event.commandName !== 'findAndModify') return;
      allocations += 1;
      if (allocations === 1) firstStarted();
      if (allocations === 2) deadline.abort(new Error('deadline'));
    };
    bed.client.on('commandStarted', watch);
    try {
      const first = users.createUser({ name: 'first' }, STRATEGY);
      // The others arrive while the first one's group runs: they make up the next group.
      await firstAllocation;
      const late = users.createUser({ name: 'late' }, STRATEGY, { signal: deadline.signal });
      const others = names(4).map((input) => users.createUser(input, STRATEGY));
      await expect(late).rejects.toThrow('deadline');
      await Promise.all([first, ...others]);
      // The late creation's id went back to the process: the next creation takes it.
      await users.createUser({ name: 'next' }, STRATEGY);
    } finally {
      bed.client.off('commandStarted', watch);
    }
    expect(inserted).not.toContain('late');
    expect(await storedIds(db)).toEqual(upTo(6));
  });
});
