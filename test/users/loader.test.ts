import { idsOf, names, UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

test('a page of 100 users with their inviters costs at most 2 finds', async () => {
  const { users, commandsDuring } = await bed.fresh();
  await users.createUsers(names(10, 'inviter'), 'COUNTER');
  await users.createUsers(
    Array.from({ length: 90 }, (_, i) => ({
      name: `invited ${i}`,
      invitedById: String((i % 10) + 1),
    })),
    'COUNTER',
  );

  const loader = users.createLoader();
  let inviterNames: Array<string | null> = [];
  const commands = await commandsDuring(async () => {
    const page = await users.page(100);
    expect(page.users).toHaveLength(100);
    // As GraphQL resolves `invitedBy` of every node: one load per user, all in the same tick.
    const inviters = await Promise.all(
      page.users.map((user) =>
        user.invitedById ? loader.load(user.invitedById.toNumber()) : null,
      ),
    );
    inviterNames = inviters.map((inviter) => inviter?.name ?? null);
  });

  expect(commands).toEqual(['find', 'find']);
  expect(inviterNames.slice(0, 10)).toEqual(Array(10).fill(null));
  expect(inviterNames.slice(10, 13)).toEqual(['inviter 1', 'inviter 2', 'inviter 3']);
});

test('answers in key order with null for missing users', async () => {
  const { users } = await bed.fresh();
  await users.createUsers(names(3), 'COUNTER');
  const loaded = await users.createLoader().loadMany([3, 99, 1, 2]);
  expect(loaded.map((user) => (user && !(user instanceof Error) ? user.name : null))).toEqual([
    'user 3',
    null,
    'user 1',
    'user 2',
  ]);
});

test('each loader caches only for its own request: a new one sees users created since', async () => {
  const { users } = await bed.fresh();
  const earlier = users.createLoader();
  expect(await earlier.load(1)).toBeNull();
  await users.createUser({ name: 'created later' }, 'COUNTER');
  expect((await users.createLoader().load(1))?.name).toBe('created later');
  expect(await earlier.load(1)).toBeNull();
});

test('pages through users in id order with a cursor', async () => {
  const { users } = await bed.fresh();
  await users.createUsers(names(25), 'BLOCK');
  const first = await users.page(10);
  const second = await users.page(10, first.users[9]._id.toString());
  const last = await users.page(10, second.users[9]._id.toString());
  expect(idsOf(first.users)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(idsOf(second.users)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  expect(idsOf(last.users)).toEqual([21, 22, 23, 24, 25]);
  expect([first.hasNextPage, second.hasNextPage, last.hasNextPage]).toEqual([true, true, false]);
});

test('finds a user by its decimal id and answers null for absent or malformed ids', async () => {
  const { users } = await bed.fresh();
  await users.createUser({ name: 'Ann' }, 'COUNTER');
  expect((await users.findById('1'))?.name).toBe('Ann');
  expect(await users.findById('2')).toBeNull();
  expect(await users.findById('one')).toBeNull();
  expect(await users.maxId()).toBe(1);
});
