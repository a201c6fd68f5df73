/**
 * The users connection: first/after and last/before, oldest or newest first, filters by strategy
 * and inviter, totalCount, and the page flags, over the real driver.
 */
import { type UserPageRequest, type Users } from '../../src/users';
import { ID_STRATEGIES } from '../../src/strategies';
import { idsOf, names, UsersTestBed } from './fixture';
import { strategySettings } from '../support/domain-options';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

/** Every id, walking pages of `size` with the cursors the way a client does. */
async function walk(
  users: Users,
  request: Omit<UserPageRequest, 'first' | 'last'>,
  size: number,
  backwards: boolean,
) {
  const seen: number[][] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await users.page(
      backwards
        ? { ...request, last: size, before: cursor }
        : { ...request, first: size, after: cursor },
    );
    seen.push(idsOf(page.users));
    const more = backwards ? page.hasPreviousPage : page.hasNextPage;
    if (!more) return seen;
    cursor = (backwards ? page.users[0] : page.users[page.users.length - 1]).id;
  }
}

test('first/after and last/before walk all users in both orders, with exact flags', async () => {
  const { users } = await bed.fresh();
  await users.createUsers(names(7), 'COUNTER');
  expect(await walk(users, { order: 'ASC' }, 3, false)).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  expect(await walk(users, { order: 'DESC' }, 3, false)).toEqual([[7, 6, 5], [4, 3, 2], [1]]);
  expect(await walk(users, { order: 'ASC' }, 3, true)).toEqual([[5, 6, 7], [2, 3, 4], [1]]);
  expect(await walk(users, { order: 'DESC' }, 3, true)).toEqual([[3, 2, 1], [6, 5, 4], [7]]);
  const middle = await users.page({ first: 2, after: '2', order: 'ASC' });
  expect(middle).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
  const end = await users.page({ last: 2, before: '3', order: 'ASC' });
  expect(idsOf(end.users)).toEqual([1, 2]);
  expect(end).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
  expect(await middle.totalCount()).toBe(7);
});

test('filters by strategy and by inviter, and totalCount counts the filter', async () => {
  const { users } = await bed.fresh({
    strategySettings: strategySettings({ OPTIMISTIC_MAX_ATTEMPTS: '50' }),
  });
  // Every strategy twice; the second round is invited by user 1.
  const invitedUsers: Array<{ name: string; id: number }> = [];
  for (const [i, strategy] of [...ID_STRATEGIES, ...ID_STRATEGIES].entries()) {
    const invited = i >= ID_STRATEGIES.length;
    const { user } = await users.createUser(
      { name: `u${i}`, invitedById: invited ? '1' : null },
      strategy,
    );
    if (invited) invitedUsers.push({ name: user.name, id: Number(user.id) });
  }
  for (const strategy of ID_STRATEGIES) {
    const page = await users.page({ first: 10, order: 'ASC', filter: { createdWith: strategy } });
    expect(page.users.map((user) => user.createdWith)).toEqual([strategy, strategy]);
    expect(await page.totalCount()).toBe(2);
  }
  const invited = await users.page({ first: 10, order: 'ASC', filter: { invitedById: '1' } });
  // In id order, which is not always creation order: BLOCK hands out ids from its block, so with
  // the three strategies of 0.3 its second user (u5) comes before u3 and u4.
  const inIdOrder = [...invitedUsers].sort((x, y) => x.id - y.id).map((user) => user.name);
  expect(invited.users.map((user) => user.name)).toEqual(inIdOrder);
  expect(await invited.totalCount()).toBe(ID_STRATEGIES.length);
  await expect(
    users.page({ first: 10, order: 'ASC', filter: { invitedById: 'x' } }),
  ).rejects.toMatchObject({ field: 'invitedById' });
});

test('a page reads at most size + 1 users, and no count unless asked', async () => {
  const { users, commandsDuring } = await bed.fresh();
  await users.createUsers(names(30), 'COUNTER');
  const commands = await commandsDuring(() => users.page({ first: 5, order: 'ASC' }));
  expect(commands).toEqual(['find']);
});
