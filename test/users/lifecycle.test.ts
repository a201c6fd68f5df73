/**
 * A user after its creation: lookup by email, update (the creation rules and uniqueness), delete,
 * and which strategies may issue a deleted user's id again.
 */
import { ID_STRATEGIES, STRATEGIES } from '../../src/strategies';
import { UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

test('findByEmail compares the address as it is stored', async () => {
  const { users } = await bed.fresh();
  const { user } = await users.createUser({ name: 'Ann', email: 'ann@example.com' }, 'COUNTER');
  expect(await users.findByEmail('  ANN@Example.com ')).toEqual(user);
  expect(await users.findByEmail('bob@example.com')).toBeNull();
  expect(await users.findByEmail('not an email')).toBeNull();
});

test('updateUser changes name and email with the creation rules; null removes the email', async () => {
  const { users, db } = await bed.fresh();
  const ann = await users.createUser({ name: 'Ann', email: 'ann@example.com' }, 'COUNTER');
  await users.createUser({ name: 'Bob', email: 'bob@example.com' }, 'COUNTER');
  const renamed = await users.updateUser(ann.user.id, {
    name: ' Zoe\u0301 ',
    email: 'A@Example.com',
  });
  expect(renamed).toMatchObject({ id: ann.user.id, name: 'Zoé', email: 'a@example.com' });
  await expect(users.updateUser(ann.user.id, { email: 'BOB@example.com' })).rejects.toMatchObject({
    code: 'EMAIL_TAKEN',
    field: 'email',
  });
  await expect(users.updateUser(ann.user.id, { name: '\u200B' })).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'name',
  });
  expect(await users.updateUser(ann.user.id, { email: null })).toMatchObject({ email: null });
  expect((await db.collection('users').findOne({ name: 'Zoé' }))?.email).toBeUndefined();
  await expect(users.updateUser('99', { name: 'x' })).rejects.toMatchObject({
    code: 'USER_NOT_FOUND',
  });
  await expect(users.updateUser('abc', { name: 'x' })).rejects.toMatchObject({
    code: 'USER_NOT_FOUND',
  });
});

test('deleteUser answers the deleted user; its invitees keep invitedById', async () => {
  const { users } = await bed.fresh();
  const inviter = await users.createUser({ name: 'Ann' }, 'COUNTER');
  const invitee = await users.createUser({ name: 'Bob', invitedById: inviter.user.id }, 'COUNTER');
  expect(await users.deleteUser(inviter.user.id)).toEqual(inviter.user);
  expect(await users.findById(inviter.user.id)).toBeNull();
  expect((await users.findById(invitee.user.id))?.invitedById).toBe(inviter.user.id);
  await expect(users.deleteUser(inviter.user.id)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
});

// The README's strategy table has a column for this (`reissuesDeletedNewest`, src/strategies).
test.each(
  ID_STRATEGIES.map(
    (strategy) => [strategy, STRATEGIES[strategy].properties.reissuesDeletedNewest] as const,
  ),
)('%s after the newest user was deleted: issues its id again = %s', async (strategy, reissues) => {
  const { users } = await bed.fresh();
  await users.createUser({ name: 'first' }, strategy);
  const newest = await users.createUser({ name: 'newest' }, strategy);
  await users.deleteUser(newest.user.id);
  const next = await users.createUser({ name: 'next' }, strategy);
  expect(next.user.id === newest.user.id).toBe(reissues);
});

test('every command of the users component carries maxTimeMS (DB_TIMEOUT_MS)', async () => {
  const { users, commandsSent } = await bed.fresh({ maxTimeMS: 4321 });
  const sent = await commandsSent(async () => {
    for (const strategy of ID_STRATEGIES) {
      await users.createUser({ name: 'a', email: `${strategy}@example.com` }, strategy);
      await users.createUsers([{ name: 'b', idempotencyKey: strategy }], strategy);
    }
    const page = await users.page({ first: 1, after: '1', order: 'ASC' });
    await page.totalCount();
    await users.createInviteesLoader().load({ inviterId: '1', order: 'ASC' });
    await users.createLoader().load('1');
    await users.findById('1');
    await users.findByEmail('counter@example.com');
    await users.updateUser('1', { name: 'c' });
    await users.deleteUser('2');
    await users.indexesReady();
  });
  const onUsers = sent.filter((event) => event.command[event.commandName] === 'users');
  expect(onUsers.length).toBeGreaterThan(15);
  expect(onUsers.filter((event) => event.command.maxTimeMS !== 4321)).toEqual([]);
});
