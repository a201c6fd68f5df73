import { ID_STRATEGIES, STRATEGIES } from '../../src/strategies';
import type { CreateUserInput } from '../../src/users';
import { UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

const refused: Array<[string, unknown, string, string?]> = [
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
  [
    'an inviter id that names no user',
    { name: 'Ann', invitedById: '42' },
    'invitedById',
    'INVITER_NOT_FOUND',
  ],
  ['an empty idempotency key', { name: 'Ann', idempotencyKey: '' }, 'idempotencyKey'],
  [
    'an idempotency key of 129 characters',
    { name: 'Ann', idempotencyKey: 'k'.repeat(129) },
    'idempotencyKey',
  ],
];

describe.each(ID_STRATEGIES)('%s refuses invalid input before taking an id', (strategy) => {
  test.each(refused)('%s', async (_case, input, field, code = 'BAD_USER_INPUT') => {
    const { users, sequences, db } = await bed.fresh();
    const inviter = await users.createUser({ name: 'inviter' }, strategy);
    const attempt = users.createUser(input as CreateUserInput, strategy);
    await expect(attempt).rejects.toMatchObject({
      code,
      field,
      message: expect.stringMatching(/\S/),
    });
    expect(await db.collection('users').countDocuments()).toBe(1);
    expect(await users.maxId()).toBe(Number(inviter.user.id));
    // Neither the counter nor the BLOCK allocator's block moved: the next id follows the inviter.
    if (strategy === 'COUNTER') expect(await sequences.peekNext({ name: 'userid' })).toBe(2);
    const next = await users.createUser({ name: 'valid' }, strategy);
    if (STRATEGIES[strategy].properties.consecutiveIds) expect(Number(next.user.id)).toBe(2);
  });
});

test('accepts and normalizes the edges of valid input', async () => {
  const { users } = await bed.fresh();
  const inviter = await users.createUser({ name: 'x'.repeat(100) }, 'COUNTER');
  const { user } = await users.createUser(
    {
      name: '  Zoë 😀  ',
      email: '  Zoe@Example.COM ',
      invitedById: inviter.user.id,
      idempotencyKey: 'k'.repeat(128),
    },
    'COUNTER',
  );
  expect(user).toMatchObject({ name: 'Zoë 😀', email: 'zoe@example.com' });
  expect(user.invitedById).toBe('1');
  const withoutEmail = await users.createUser({ name: 'No email', email: '' }, 'COUNTER');
  expect(withoutEmail.user.email).toBeNull();
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
    await expect(users.page({ first, order: 'ASC' })).rejects.toMatchObject({ field: 'first' });
    await expect(users.page({ last: first, order: 'DESC' })).rejects.toMatchObject({
      field: 'last',
    });
  }
  for (const cursor of ['abc', '{"$gt":0}', '0', '-1']) {
    await expect(users.page({ first: 10, after: cursor, order: 'ASC' })).rejects.toMatchObject({
      field: 'after',
    });
    await expect(users.page({ last: 10, before: cursor, order: 'ASC' })).rejects.toMatchObject({
      field: 'before',
    });
  }
  await expect(users.page({ first: 1, last: 1, order: 'ASC' })).rejects.toMatchObject({
    field: 'last',
  });
});

describe('input that is what it looks like (findings 6 and 12)', () => {
  const invisible: Array<[string, string]> = [
    ['only a zero-width space', '\u200B'],
    ['only a right-to-left override', '\u202E'],
    ['a right-to-left override inside', 'Ann\u202Egnp.exe'],
    ['a left-to-right isolate inside', 'Ann\u2066x\u2069'],
    ['a line separator inside', 'Ann\u2028Bob'],
    ['a paragraph separator inside', 'Ann\u2029Bob'],
    ['a byte-order mark inside', 'An\uFEFFn'],
    ['only the Hangul filler U+3164', '\u3164'],
    ['only Hangul fillers and spaces', '\u3164 \u3164'],
    ['only combining marks', '\u0301\u0302\u0303'],
    ['only a zero-width joiner', '\u200D'],
    ['a lone high surrogate', 'Ann\uD800'],
    ['a lone low surrogate', '\uDC00Ann'],
  ];
  test.each(invisible)('a name with %s is refused on name', async (_case, name) => {
    const { users, db } = await bed.fresh();
    await expect(users.createUser({ name }, 'COUNTER')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'name',
    });
    expect(await db.collection('users').countDocuments()).toBe(0);
  });

  test('names with joiners inside emoji or scripts, and with accents, are accepted as NFC', async () => {
    const { users, db } = await bed.fresh();
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    const persian = 'می\u200Cخواهم';
    for (const name of [family, persian]) {
      expect((await users.createUser({ name }, 'COUNTER')).user.name).toBe(name);
    }
    const decomposed = 'Zoe\u0301';
    const { user } = await users.createUser({ name: decomposed }, 'COUNTER');
    expect(user.name).toBe('Zoé');
    const stored = await db.collection('users').findOne({ name: 'Zoé' });
    expect(stored?.name).toBe('Zoé');
  });

  test.each([
    ['idempotencyKey', { idempotencyKey: 'key-\uD800' }],
    ['email', { email: 'ann\uDC00@example.com' }],
  ])('a lone surrogate in %s is refused naming it, storing nothing', async (field, extra) => {
    const { users, db } = await bed.fresh();
    await expect(users.createUser({ name: 'Ann', ...extra }, 'COUNTER')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field,
    });
    expect(await db.collection('users').countDocuments()).toBe(0);
  });

  test('an idempotency key in NFC, NFD or with surrounding spaces is one key; its case is kept', async () => {
    const { users, db } = await bed.fresh();
    const nfc = 'clé-\u00E9';
    const variants = [nfc, nfc.normalize('NFD'), ` ${nfc} `, `${nfc.normalize('NFD')}\t`];
    const created = [];
    for (const idempotencyKey of variants) {
      created.push(await users.createUser({ name: 'Ann', idempotencyKey }, 'COUNTER'));
    }
    expect(new Set(created.map((c) => Number(c.user.id))).size).toBe(1);
    expect(created.map((c) => c.replayed)).toEqual([false, true, true, true]);
    expect((await db.collection('users').findOne({}))?.idempotencyKey).toBe(nfc);
    const upper = await users.createUser(
      { name: 'Ann', idempotencyKey: nfc.toUpperCase() },
      'COUNTER',
    );
    expect(upper.replayed).toBe(false);
    const stored = await db.collection('users').find({}).toArray();
    expect(stored.map((doc) => doc.idempotencyKey).sort()).toEqual([nfc, nfc.toUpperCase()].sort());
  });

  test('an idempotency key with a hidden character is refused on idempotencyKey', async () => {
    const { users } = await bed.fresh();
    for (const idempotencyKey of ['a\u200Bb', 'a\u202Eb', 'a\u0000b', 'a\u2028b']) {
      await expect(
        users.createUser({ name: 'Ann', idempotencyKey }, 'COUNTER'),
      ).rejects.toMatchObject({ field: 'idempotencyKey' });
    }
  });

  test('emails in any case and with surrounding spaces are one address, stored as acknowledged', async () => {
    const { users } = await bed.fresh();
    const first = await users.createUser({ name: 'Ann', email: ' Ann@Example.COM ' }, 'COUNTER');
    expect(first.user.email).toBe('ann@example.com');
    await expect(
      users.createUser({ name: 'Other', email: 'ANN@EXAMPLE.com' }, 'COUNTER'),
    ).rejects.toMatchObject({ field: 'email' });
  });
});
