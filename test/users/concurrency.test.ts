import { COUNTER_FED_STRATEGIES, ID_STRATEGIES } from '../../src/strategies';
import { idsOf, storedIds, UsersTestBed } from './fixture';
import { patientUsersSettings, strategySettings } from '../support/domain-options';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

test('500 concurrent creations with mixed strategies get 500 distinct stored ids', async () => {
  const { users, db } = await bed.fresh(patientUsersSettings);
  const created = await Promise.all(
    Array.from({ length: 500 }, (_, i) =>
      users.createUser(
        { name: `user ${i}`, email: `user${i}@example.com` },
        ID_STRATEGIES[i % ID_STRATEGIES.length],
      ),
    ),
  );
  const ids = idsOf(created.map((c) => c.user));
  expect(new Set(ids).size).toBe(500);
  const stored = await storedIds(db);
  expect(stored).toHaveLength(500);
  expect(new Set(stored)).toEqual(new Set(ids));
  // The optimistic third contends with itself (and with the counter) for max + 1; with backoff
  // it still completes, which takes tens of seconds against the stand-in.
}, 240_000);

test('BLOCK in two processes on one database: 300 concurrent creations stay unique', async () => {
  const { users, otherProcess, db } = await bed.fresh({
    strategySettings: strategySettings({ ID_BLOCK_SIZE: '10' }),
  });
  const other = await otherProcess();
  const created = await Promise.all(
    Array.from({ length: 300 }, (_, i) =>
      (i % 2 === 0 ? users : other).createUser({ name: `user ${i}` }, 'BLOCK'),
    ),
  );
  const ids = idsOf(created.map((c) => c.user));
  expect(new Set(ids).size).toBe(300);
  expect(await db.collection('users').countDocuments()).toBe(300);
});

test.each(COUNTER_FED_STRATEGIES)(
  '%s beside optimistic traffic of its own process: a taken id costs one retry, never more',
  async (strategy) => {
    // Optimistic inserts take max + 1 without the counter, so the counter lags and a counter-fed
    // round collides; its retry (repair, take, insert) runs alone in the process, so no insert of
    // this process can take the repaired counter's next id first. Before, a retry beside
    // optimistic traffic could collide again and again, up to ID_CONTENTION.
    const { users } = await bed.fresh(patientUsersSettings);
    let stopping = false;
    // Each lane answers its ids, or the error that stopped it (a rejection would go unhandled
    // while the counter-fed creations run).
    const optimistic = Array.from({ length: 16 }, async (_, lane) => {
      const ids: string[] = [];
      try {
        while (!stopping) {
          const { user } = await users.createUser({ name: `lane ${lane}` }, 'OPTIMISTIC_LOOP');
          ids.push(user.id);
        }
      } catch (err) {
        return err as Error;
      }
      return ids;
    });
    const counterFed: Array<{ user: { id: string }; attempts: number } | Error> = [];
    for (let i = 0; i < 40; i += 1) {
      counterFed.push(
        await users.createUser({ name: `fed ${i}` }, strategy).catch((err: Error) => err),
      );
    }
    stopping = true;
    const lanes = await Promise.all(optimistic);
    expect(lanes.filter((lane) => lane instanceof Error)).toEqual([]);
    const optimisticIds = (lanes as string[][]).flat();
    const answered = counterFed.map((c) => (c instanceof Error ? c.message : c.attempts));
    expect(answered.filter((c) => typeof c !== 'number' || c > 2)).toEqual([]);
    const fedIds = counterFed.flatMap((c) => (c instanceof Error ? [] : [c.user.id]));
    const ids = [...optimisticIds, ...fedIds];
    expect(new Set(ids).size).toBe(ids.length);
  },
  240_000,
);
