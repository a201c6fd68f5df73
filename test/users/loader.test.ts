import type { Users } from '../../src/users';
import { idsOf, names, UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

/** Users 1..10 invited users 11..100: user k invited k + 10, k + 20, ..., k + 90. */
async function tenInvitersOfNineEach(users: Users): Promise<void> {
  await users.createUsers(names(10, 'inviter'), 'COUNTER');
  await users.createUsers(
    Array.from({ length: 90 }, (_, i) => ({
      name: `invited ${i}`,
      invitedById: String((i % 10) + 1),
    })),
    'COUNTER',
  );
}

test('a page of 100 users with their inviters costs at most 2 finds', async () => {
  const { users, commandsDuring } = await bed.fresh();
  await tenInvitersOfNineEach(users);

  const loader = users.createLoader();
  let inviterNames: Array<string | null> = [];
  const commands = await commandsDuring(async () => {
    const page = await users.page({ first: 100, order: 'ASC' });
    expect(page.users).toHaveLength(100);
    // As GraphQL resolves `invitedBy` of every node: one load per user, all in the same tick.
    const inviters = await Promise.all(
      page.users.map((user) => (user.invitedById ? loader.load(user.invitedById) : null)),
    );
    inviterNames = inviters.map((inviter) => inviter?.name ?? null);
  });

  expect(commands).toEqual(['find', 'find']);
  expect(inviterNames.slice(0, 10)).toEqual(Array(10).fill(null));
  expect(inviterNames.slice(10, 13)).toEqual(['inviter 1', 'inviter 2', 'inviter 3']);
});

test('answers in key order with null for missing users and malformed ids', async () => {
  const { users } = await bed.fresh();
  await users.createUsers(names(3), 'COUNTER');
  const loaded = await users.createLoader().loadMany(['3', '99', '1', 'x', '{"$gt":0}', '2']);
  expect(loaded.map((user) => (user && !(user instanceof Error) ? user.name : null))).toEqual([
    'user 3',
    null,
    'user 1',
    null,
    null,
    'user 2',
  ]);
});

test('each loader caches only for its own request: a new one sees users created since', async () => {
  const { users } = await bed.fresh();
  const earlier = users.createLoader();
  expect(await earlier.load('1')).toBeNull();
  await users.createUser({ name: 'created later' }, 'COUNTER');
  expect((await users.createLoader().load('1'))?.name).toBe('created later');
  expect(await earlier.load('1')).toBeNull();
});

test('invitees of a page of users cost two commands, whatever the number of inviters', async () => {
  const { users, commandsDuring } = await bed.fresh();
  await tenInvitersOfNineEach(users);
  const loader = users.createInviteesLoader();
  const inviters = Array.from({ length: 10 }, (_, i) => String(i + 1));
  let pages: Awaited<ReturnType<typeof loader.load>>[] = [];
  const commands = await commandsDuring(async () => {
    pages = await Promise.all(
      inviters.map((inviterId) => loader.load({ inviterId, first: 3, order: 'DESC' })),
    );
  });
  expect(commands).toEqual(['find', 'find']);
  // Inviter 1 invited users 11, 21, ..., 91 (ids 11 + 10k): newest first.
  expect(idsOf(pages[0].users)).toEqual([91, 81, 71]);
  expect(idsOf(pages[9].users)).toEqual([100, 90, 80]);
  expect(pages.every((page) => page.hasNextPage && !page.hasPreviousPage)).toBe(true);
  expect(await pages[0].totalCount()).toBe(9);
  const next = await users
    .createInviteesLoader()
    .load({ inviterId: '1', first: 3, after: '71', order: 'DESC' });
  expect(idsOf(next.users)).toEqual([61, 51, 41]);
  expect(next.hasPreviousPage).toBe(true);
  const none = await users.createInviteesLoader().load({ inviterId: '99', order: 'ASC' });
  expect(none.users).toEqual([]);
});

test('finds a user by its decimal id and answers null for absent or malformed ids', async () => {
  const { users } = await bed.fresh();
  await users.createUser({ name: 'Ann' }, 'COUNTER');
  expect((await users.findById('1'))?.name).toBe('Ann');
  expect(await users.findById('2')).toBeNull();
  expect(await users.findById('one')).toBeNull();
  expect(await users.maxId()).toBe(1);
});
