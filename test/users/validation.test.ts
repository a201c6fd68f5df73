import { BadUserInputError } from '../../src/errors';
import { ID_STRATEGIES } from '../../src/stats';
import type { CreateUserInput } from '../../src/users';
import { UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

const refused: Array<[string, unknown, string]> = [
  ['a missing name', {}, 'name'],
  ['an empty name', { name: '' }, 'name'],
  ['a name of only spaces', { name: '   ' }, 'name'],
  ['a name of 101 characters', { name: 'x'.repeat(101) }, 'name'],
  ['a name with a control character', { name: 'Ann\u0000' }, 'name'],
  ['a name with a newline', { name: 'Ann\nBob' }, 'name'],
  ['a name that is an operator object', { name: { $gt: '' } }, 'name'],
  ['an email without @', { name: 'Ann', email: 'ann.example.com' }, 'email'],
  ['an email without a domain', { name: 'Ann', email: 'ann@' }, 'email'],
  ['an email of 255 characters', { name: 'Ann', email: `${'a'.repeat(243)}@example.com` }, 'email'],
  ['an email that is an operator object', { name: 'Ann', email: { $ne: null } }, 'email'],
  ['an inviter id that is not a number', { name: 'Ann', invitedById: 'abc' }, 'invitedById'],
  ['an inviter id of 0', { name: 'Ann', invitedById: '0' }, 'invitedById'],
  ['a negative inviter id', { name: 'Ann', invitedById: '-1' }, 'invitedById'],
  ['an inviter id with a fraction', { name: 'Ann', invitedById: '1.5' }, 'invitedById'],
  ['an inviter id above 2^53 - 1', { name: 'Ann', invitedById: '9007199254740992' }, 'invitedById'],
  [
    'an inviter id that is an operator object',
    { name: 'Ann', invitedById: { $gt: 0 } },
    'invitedById',
  ],
  ['an inviter id that names no user', { name: 'Ann', invitedById: '42' }, 'invitedById'],
  ['an empty idempotency key', { name: 'Ann', idempotencyKey: '' }, 'idempotencyKey'],
  [
    'an idempotency key of 129 characters',
    { name: 'Ann', idempotencyKey: 'k'.repeat(129) },
    'idempotencyKey',
  ],
];

describe.each(ID_STRATEGIES)('%s refuses invalid input before taking an id', (strategy) => {
  test.each(refused)('%s', async (_case, input, field) => {
    const { users, sequences, db } = await bed.fresh();
    const inviter = await users.createUser({ name: 'inviter' }, strategy);
    const attempt = users.createUser(input as CreateUserInput, strategy);
    await expect(attempt).rejects.toBeInstanceOf(BadUserInputError);
    await expect(attempt).rejects.toMatchObject({ field, message: expect.stringMatching(/\S/) });
    expect(await db.collection('users').countDocuments()).toBe(1);
    expect(await users.maxId()).toBe(inviter.user._id.toNumber());
    // Neither the counter nor the BLOCK allocator's block moved: the next id follows the inviter.
    if (strategy === 'COUNTER') expect(await sequences.peekNext({ name: 'userid' })).toBe(2);
    const next = await users.createUser({ name: 'valid' }, strategy);
    expect(next.user._id.toNumber()).toBe(2);
  });
});

test('accepts and normalizes the edges of valid input', async () => {
  const { users } = await bed.fresh();
  const inviter = await users.createUser({ name: 'x'.repeat(100) }, 'COUNTER');
  const { user } = await users.createUser(
    {
      name: '  Zoë 😀  ',
      email: '  Zoe@Example.COM ',
      invitedById: inviter.user._id.toString(),
      idempotencyKey: 'k'.repeat(128),
    },
    'COUNTER',
  );
  expect(user).toMatchObject({ name: 'Zoë 😀', email: 'zoe@example.com' });
  expect(user.invitedById?.toNumber()).toBe(1);
  const withoutEmail = await users.createUser({ name: 'No email', email: '' }, 'COUNTER');
  expect(withoutEmail.user.email).toBeUndefined();
});

test('refuses a batch of more than 1,000 users as a whole', async () => {
  const { users, db } = await bed.fresh();
  const inputs = Array.from({ length: 1001 }, (_, i) => ({ name: `user ${i}` }));
  await expect(users.createUsers(inputs, 'COUNTER')).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'inputs',
  });
  expect(await db.collection('users').countDocuments()).toBe(0);
});

test('refuses page sizes outside 1 to 100 and cursors that are not ids', async () => {
  const { users } = await bed.fresh();
  for (const first of [0, 101, 1.5]) {
    await expect(users.page(first)).rejects.toMatchObject({ field: 'first' });
  }
  await expect(users.page(10, 'abc')).rejects.toMatchObject({ field: 'after' });
  await expect(users.page(10, '{"$gt":0}')).rejects.toMatchObject({ field: 'after' });
});
