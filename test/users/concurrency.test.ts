import { ID_STRATEGIES } from '../../src/strategies';
import { idsOf, UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

test('500 concurrent creations with mixed strategies get 500 distinct stored ids', async () => {
  const { users, db } = await bed.fresh({ optimisticMaxAttempts: 1000 });
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
  const stored = await db
    .collection('users')
    .find({}, { projection: { _id: 1 } })
    .toArray();
  expect(stored).toHaveLength(500);
  expect(new Set(stored.map((doc) => Number(doc._id)))).toEqual(new Set(ids));
  // The optimistic third contends with itself (and with the counter) for max + 1; with backoff
  // it still completes, which takes tens of seconds against the stand-in.
}, 240_000);

test('BLOCK in two processes on one database: 300 concurrent creations stay unique', async () => {
  const { users, otherProcess, db } = await bed.fresh({ blockSize: 10 });
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
