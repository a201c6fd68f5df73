/**
 * Users through the real HTTP server, as a frontend uses them (issue 12): round trip, ids per
 * strategy, expected failures as data beside their field (one failing mutation never hides its
 * siblings), the full users connection (both directions, order, filters, totalCount), invitees,
 * lookup by email, update, delete, create payloads with an edge, batches in input order, and ids
 * past 2^31 stored as Int64.
 */
import { keyAsSent } from '../support/keys';
import { ID_STRATEGIES, STRATEGIES, strategiesWhere } from '../../src/strategies';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../support/service';

interface Page {
  totalCount: number;
  edges: Array<{ cursor: string; node: { id: string; name: string } }>;
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

const USER_FIELDS = 'id name email createdWith createdAt invitedById invitedBy { id name }';
const CREATE_USER = `
  mutation Create($input: CreateUserInput!, $strategy: IdStrategy) {
    createUser(input: $input, strategy: $strategy) {
      user { ${USER_FIELDS} }
      userEdge { cursor node { id } }
      strategy attempts replayed
      error { code message field retryable }
    }
  }`;
const USER = `query One($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`;
const PAGE = `
  query Page($first: Int, $after: String, $last: Int, $before: String, $order: UserOrder, $filter: UserFilter) {
    users(first: $first, after: $after, last: $last, before: $before, order: $order, filter: $filter) {
      totalCount
      edges { cursor node { id name } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }`;
const UPDATE = `
  mutation Update($id: ID!, $input: UpdateUserInput!) {
    updateUser(id: $id, input: $input) { user { id name email } error { code message field retryable } }
  }`;
const DELETE = `
  mutation Delete($id: ID!) {
    deleteUser(id: $id) { deletedUserId user { id name } error { code message field retryable } }
  }`;
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});

afterAll(async () => {
  await service.stop();
});

async function createUser(input: object, strategy?: string) {
  const response = await service.graphql(CREATE_USER, { input, strategy });
  expect(response.body.errors).toBeUndefined();
  expect(response.body.data.createUser.error).toBeNull();
  return response.body.data.createUser;
}

async function page(variables: object): Promise<Page> {
  const response = await service.graphql(PAGE, variables);
  expect(response.body.errors).toBeUndefined();
  return response.body.data.users;
}

const storedIds = async (filter: object = {}) =>
  (
    await service.client
      .db(service.dbName)
      .collection('users')
      .find(filter, { projection: { _id: 1 }, sort: { _id: 1 } })
      .toArray()
  ).map((doc) => String(doc._id));

test('a created user reads back with the same fields, and its payload carries its edge', async () => {
  const inviter = await createUser({ name: 'Grace Hopper', email: 'grace@example.com' });
  const created = await createUser({
    name: '  Ada  ',
    email: 'Ada@Example.com',
    invitedById: inviter.user.id,
  });
  expect(created).toMatchObject({ strategy: 'COUNTER', attempts: 1, replayed: false });
  expect(created.userEdge).toEqual({ cursor: created.user.id, node: { id: created.user.id } });
  expect(created.user).toMatchObject({
    name: 'Ada',
    email: 'ada@example.com',
    createdWith: 'COUNTER',
    invitedById: inviter.user.id,
    invitedBy: { id: inviter.user.id, name: 'Grace Hopper' },
  });
  expect(new Date(created.user.createdAt).toISOString()).toBe(created.user.createdAt);

  const read = await service.graphql(USER, { id: created.user.id });
  expect(read.status).toBe(200);
  expect(read.body.data.user).toEqual(created.user);
  const byEmail = await service.graphql('query($e: String!) { userByEmail(email: $e) { id } }', {
    e: 'ada@example.com',
  });
  expect(byEmail.body.data.userByEmail).toEqual({ id: created.user.id });
});

test('a user that does not exist reads as null, by id and by email', async () => {
  const read = await service.graphql(USER, { id: '987654321' });
  expect(read.body).toEqual({ data: { user: null }, extensions: { cost: expect.any(Object) } });
  const byEmail = await service.graphql('{ userByEmail(email: "nobody@example.com") { id } }');
  expect(byEmail.body).toEqual({
    data: { userByEmail: null },
    extensions: { cost: expect.any(Object) },
  });
});

test.each(strategiesWhere('consecutiveIds'))(
  '%s issues consecutive ids to consecutive requests',
  async (strategy) => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const created = await createUser({ name: `${strategy} ${i}` }, strategy);
      expect(created.user.createdWith).toBe(strategy);
      ids.push(Number(created.user.id));
    }
    expect(ids).toEqual(ids.map((_, i) => ids[0] + i));
  },
);

describe('errors as data: one failing mutation never hides its siblings', () => {
  test('issue 12, finding 1: a valid and an invalid create in one document: the first user is visible', async () => {
    const response = await service.graphql(`mutation {
      a: createUser(input: { name: "Stored anyway" }) { user { id name } error { code } }
      b: createUser(input: { name: "" }) { user { id } error { code message field retryable } }
    }`);
    expect(response.body.errors).toBeUndefined();
    const { a, b } = response.body.data;
    expect(a).toEqual({ user: { id: expect.any(String), name: 'Stored anyway' }, error: null });
    expect(b).toEqual({
      user: null,
      error: {
        code: 'BAD_USER_INPUT',
        message: expect.any(String),
        field: 'name',
        retryable: false,
      },
    });
    expect(await storedIds({ name: 'Stored anyway' })).toEqual([a.user.id]);
  });

  test('a refused query field nulls only itself: sequences still answers beside users(first: 0)', async () => {
    const response = await service.graphql(
      '{ sequences { edges { cursor } } users(first: 0) { totalCount } }',
    );
    expect(response.body.data.sequences).toEqual({ edges: expect.any(Array) });
    expect(response.body.data.users).toBeNull();
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors?.[0]).toMatchObject({
      path: ['users'],
      extensions: { code: 'BAD_USER_INPUT', field: 'first' },
    });
  });
});

describe('refused input names its field, comes back as data and consumes no id', () => {
  const cases: Array<[string, object, string, string]> = [
    ['empty name', { name: '   ' }, 'BAD_USER_INPUT', 'name'],
    ['name over 100 characters', { name: 'x'.repeat(101) }, 'BAD_USER_INPUT', 'name'],
    ['control character in name', { name: 'bad\u0007name' }, 'BAD_USER_INPUT', 'name'],
    ['malformed email', { name: 'Bob', email: 'not-an-email' }, 'BAD_USER_INPUT', 'email'],
    [
      'unknown inviter',
      { name: 'Bob', invitedById: '99999999' },
      'INVITER_NOT_FOUND',
      'invitedById',
    ],
    ['non-numeric inviter', { name: 'Bob', invitedById: 'abc' }, 'BAD_USER_INPUT', 'invitedById'],
    [
      'empty idempotency key',
      { name: 'Bob', idempotencyKey: '' },
      'BAD_USER_INPUT',
      'idempotencyKey',
    ],
    [
      'idempotency key over 128 characters',
      { name: 'Bob', idempotencyKey: 'k'.repeat(129) },
      'BAD_USER_INPUT',
      'idempotencyKey',
    ],
  ];

  test.each(cases)('%s', async (_label, input, code, field) => {
    const before = await service.graphql(`{ nextSequence(name: "userid") }`, {}, ADMIN);
    const response = await service.graphql(CREATE_USER, { input });
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.createUser).toMatchObject({
      user: null,
      userEdge: null,
      attempts: null,
      replayed: null,
      error: { code, field, retryable: false },
    });
    const after = await service.graphql(`{ nextSequence(name: "userid") }`, {}, ADMIN);
    expect(after.body.data.nextSequence).toBe(before.body.data.nextSequence);
  });

  test.each(ID_STRATEGIES)('a duplicate email under %s is EMAIL_TAKEN', async (strategy) => {
    const email = `dup-${strategy.toLowerCase()}@example.com`;
    await createUser({ name: 'First', email });
    const response = await service.graphql(CREATE_USER, {
      input: { name: 'Second', email },
      strategy,
    });
    expect(response.body.data.createUser.error).toMatchObject({
      code: 'EMAIL_TAKEN',
      field: 'email',
    });
  });

  test('an idempotency key reused with other input is IDEMPOTENCY_KEY_REUSED', async () => {
    await createUser({ name: 'Keyed', idempotencyKey: 'reused-key' });
    const response = await service.graphql(CREATE_USER, {
      input: { name: 'Other', idempotencyKey: 'reused-key' },
    });
    expect(response.body.data.createUser.error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      field: 'idempotencyKey',
    });
  });

  test.each([0, 101, -1])(
    'users(first: %d) is a top-level BAD_USER_INPUT on first',
    async (first) => {
      const response = await service.graphql(
        `query P($first: Int) { users(first: $first) { totalCount } }`,
        {
          first,
        },
      );
      expect(response.body.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'first',
      });
    },
  );
});

describe('the users connection', () => {
  test('pages forward through every user in id order, with full PageInfo and totalCount', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 100; pages += 1) {
      const current = await page({ first: 4, after });
      expect(current.pageInfo.hasPreviousPage).toBe(after !== null);
      expect(current.pageInfo.startCursor).toBe(current.edges[0]?.cursor ?? null);
      expect(current.pageInfo.endCursor).toBe(current.edges.at(-1)?.cursor ?? null);
      for (const edge of current.edges) {
        expect(edge.cursor).toBe(edge.node.id);
        seen.push(edge.node.id);
      }
      if (!current.pageInfo.hasNextPage) break;
      after = current.pageInfo.endCursor;
    }
    const stored = await storedIds();
    expect(seen).toEqual(stored);
    expect((await page({ first: 1 })).totalCount).toBe(stored.length);
    expect(seen.length).toBeGreaterThan(10);
  });

  test('pages backward with last/before, and newest first with order ID_DESC', async () => {
    const stored = await storedIds();
    const tail = await page({ last: 3 });
    expect(tail.edges.map((edge) => edge.node.id)).toEqual(stored.slice(-3));
    expect(tail.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const before = await page({ last: 2, before: tail.pageInfo.startCursor });
    expect(before.edges.map((edge) => edge.node.id)).toEqual(stored.slice(-5, -3));
    const newest = await page({ first: 3, order: 'ID_DESC' });
    expect(newest.edges.map((edge) => edge.node.id)).toEqual(stored.slice(-3).reverse());
    expect(newest.totalCount).toBe(stored.length);
  });

  test('filters by strategy and by inviter, and counts what the filter keeps', async () => {
    const blocks = await page({ first: 100, filter: { createdWith: 'BLOCK' } });
    const storedBlocks = await storedIds({ createdWith: 'BLOCK' });
    expect(blocks.edges.map((edge) => edge.node.id)).toEqual(storedBlocks);
    expect(blocks.totalCount).toBe(storedBlocks.length);

    const inviter = await createUser({ name: 'Inviter' });
    const invited = [];
    for (const name of ['Guest one', 'Guest two']) {
      invited.push((await createUser({ name, invitedById: inviter.user.id })).user.id);
    }
    const byInviter = await page({ first: 10, filter: { invitedById: inviter.user.id } });
    expect(byInviter.edges.map((edge) => edge.node.id)).toEqual(invited);
    expect(byInviter.totalCount).toBe(2);

    const invitees = await service.graphql(
      `query($id: ID!) { user(id: $id) { invitees(first: 1) { totalCount edges { node { name } } pageInfo { hasNextPage } } } }`,
      { id: inviter.user.id },
    );
    expect(invitees.body.data.user.invitees).toEqual({
      totalCount: 2,
      edges: [{ node: { name: 'Guest one' } }],
      pageInfo: { hasNextPage: true },
    });
  });
});

describe('updateUser and deleteUser (admin)', () => {
  test('updateUser changes name and email with the rules of creation', async () => {
    const user = await createUser({ name: 'Before', email: 'before@example.com' });
    await createUser({ name: 'Holder', email: 'held@example.com' });
    const renamed = await service.graphql(
      UPDATE,
      { id: user.user.id, input: { name: '  After  ' } },
      ADMIN,
    );
    expect(renamed.body.data.updateUser).toEqual({
      user: { id: user.user.id, name: 'After', email: 'before@example.com' },
      error: null,
    });
    const taken = await service.graphql(
      UPDATE,
      { id: user.user.id, input: { email: 'held@example.com' } },
      ADMIN,
    );
    expect(taken.body.data.updateUser).toMatchObject({
      user: null,
      error: { code: 'EMAIL_TAKEN', field: 'email' },
    });
    const empty = await service.graphql(UPDATE, { id: user.user.id, input: { name: '' } }, ADMIN);
    expect(empty.body.data.updateUser.error).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'name',
    });
    const absent = await service.graphql(
      UPDATE,
      { id: '987654321', input: { name: 'Nobody' } },
      ADMIN,
    );
    expect(absent.body.data.updateUser.error).toMatchObject({ code: 'USER_NOT_FOUND' });
    expect((await service.graphql(USER, { id: user.user.id })).body.data.user.name).toBe('After');
  });

  test('deleteUser answers the deleted user; its invitees keep invitedById and lose invitedBy', async () => {
    const inviter = await createUser({ name: 'Leaving' });
    const guest = await createUser({ name: 'Staying', invitedById: inviter.user.id });
    const deleted = await service.graphql(DELETE, { id: inviter.user.id }, ADMIN);
    expect(deleted.body.data.deleteUser).toEqual({
      deletedUserId: inviter.user.id,
      user: { id: inviter.user.id, name: 'Leaving' },
      error: null,
    });
    const read = await service.graphql(USER, { id: guest.user.id });
    expect(read.body.data.user).toMatchObject({ invitedById: inviter.user.id, invitedBy: null });
    const again = await service.graphql(DELETE, { id: inviter.user.id }, ADMIN);
    expect(again.body.data.deleteUser).toMatchObject({
      deletedUserId: null,
      error: { code: 'USER_NOT_FOUND', retryable: false },
    });
  });

  test('a deleted newest id is issued again by OPTIMISTIC_LOOP, never by COUNTER or BLOCK', async () => {
    const newest = await createUser({ name: 'Newest' }, 'OPTIMISTIC_LOOP');
    await service.graphql(DELETE, { id: newest.user.id }, ADMIN);
    const reissued = await createUser({ name: 'Takes the same id' }, 'OPTIMISTIC_LOOP');
    expect(reissued.user.id).toBe(newest.user.id);

    const counted = await createUser({ name: 'Counted' }, 'COUNTER');
    await service.graphql(DELETE, { id: counted.user.id }, ADMIN);
    const neverReissue = ID_STRATEGIES.filter(
      (strategy) => !STRATEGIES[strategy].properties.reissuesDeletedNewest,
    );
    for (const strategy of neverReissue) {
      const next = await createUser({ name: `After delete ${strategy}` }, strategy);
      expect(next.user.id).not.toBe(counted.user.id);
    }
  });
});

test('an id above 2^31 round-trips and is stored as Int64', async () => {
  const value = 2 ** 31 + 7;
  const set = await service.graphql(
    `mutation Set($value: Long!) { setSequence(name: "userid", value: $value) { sequence { value next } error { code } } }`,
    { value },
    ADMIN,
  );
  expect(set.body.errors).toBeUndefined();
  expect(set.body.data.setSequence).toEqual({ sequence: { value, next: value + 1 }, error: null });

  const created = await createUser({ name: 'Big id' }, 'COUNTER');
  expect(created.user.id).toBe(String(value + 1));
  const read = await service.graphql(USER, { id: String(value + 1) });
  expect(read.body.data.user.name).toBe('Big id');

  const raw = service.client.db(service.dbName);
  const stored = await raw.collection('users').findOne({ name: 'Big id' }, { useBigInt64: true });
  expect(stored?._id).toBe(BigInt(value + 1));
  const counter = await raw
    .collection('counters')
    .findOne({ _id: 'userid' as never }, { useBigInt64: true });
  expect(counter?.seq).toBe(BigInt(value + 1));
});

test('createUsers answers one result per input, ids in input order, and a bad item fails alone', async () => {
  const response = await service.graphql(
    `mutation Many($inputs: [CreateUserInput!]!, $strategy: IdStrategy) {
      createUsers(inputs: $inputs, strategy: $strategy) {
        strategy created failed error { code }
        results { index user { id name } userEdge { cursor } error { code field message retryable } }
      }
    }`,
    {
      strategy: 'BLOCK',
      inputs: [
        { name: 'Batch one', email: 'batch@example.com' },
        { name: 'Batch two', email: 'batch@example.com' },
        { name: '' },
        { name: 'Batch four' },
        { name: 'Batch five' },
      ],
    },
  );
  expect(response.body.errors).toBeUndefined();
  const payload = response.body.data.createUsers;
  expect(payload).toMatchObject({ strategy: 'BLOCK', created: 3, failed: 2, error: null });
  expect(payload.results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4]);
  expect(payload.results[0]).toMatchObject({ user: { name: 'Batch one' }, error: null });
  expect(payload.results[0].userEdge).toEqual({ cursor: payload.results[0].user.id });
  expect(payload.results[1]).toMatchObject({
    user: null,
    userEdge: null,
    error: { code: 'EMAIL_TAKEN', field: 'email', retryable: false },
  });
  expect(payload.results[2]).toMatchObject({
    user: null,
    error: { code: 'BAD_USER_INPUT', field: 'name' },
  });
  const ids = [0, 3, 4].map((i) => Number(payload.results[i].user.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(payload.results[1].error.message).toEqual(expect.any(String));
});

describe('createUsers with idempotency keys says which items were replayed', () => {
  const CREATE_MANY = `mutation Many($inputs: [CreateUserInput!]!, $strategy: IdStrategy) {
    createUsers(inputs: $inputs, strategy: $strategy) {
      created replayed failed error { code }
      results { index replayed user { id name } error { code field } }
    }
  }`;

  async function createMany(inputs: object[], strategy: string) {
    const response = await service.graphql(CREATE_MANY, { inputs, strategy });
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.createUsers.error).toBeNull();
    return response.body.data.createUsers;
  }

  type Result = { replayed: boolean | null; user: { id: string } | null };
  const replayedOf = (result: Result) => result.replayed;
  const idOf = (result: Result) => result.user?.id ?? null;

  /**
   * What is stored under keys starting with `prefix`: key -> id (the key as sent), through the
   * driver.
   */
  async function storedByKey(prefix: string): Promise<Map<string, string>> {
    const docs = await service.client
      .db(service.dbName)
      .collection('users')
      .find({ idempotencyKey: { $regex: `^${prefix}` } })
      .toArray();
    return new Map(docs.map((doc) => [keyAsSent(doc.idempotencyKey as string), String(doc._id)]));
  }

  const counterSeq = async () =>
    Number(
      (
        await service.client
          .db(service.dbName)
          .collection('counters')
          .findOne({ _id: 'userid' as never })
      )?.seq,
    );

  test.each(ID_STRATEGIES)(
    '%s: a batch sent again with the same keys replays every item and creates nothing',
    async (strategy) => {
      const inputs = ['one', 'two', 'three'].map((n) => ({
        name: `Resent ${n}`,
        idempotencyKey: `resent-${strategy}-${n}`,
      }));
      const first = await createMany(inputs, strategy);
      expect(first).toMatchObject({ created: 3, replayed: 0, failed: 0 });
      expect(first.results.map(replayedOf)).toEqual([false, false, false]);
      const stored = await storedByKey(`resent-${strategy}-`);
      const seqBefore = await counterSeq();

      const again = await createMany(inputs, strategy);
      expect(again).toMatchObject({ created: 0, replayed: 3, failed: 0 });
      expect(again.results.map(replayedOf)).toEqual([true, true, true]);
      expect(again.results.map(idOf)).toEqual(first.results.map(idOf));
      expect(await storedByKey(`resent-${strategy}-`)).toEqual(stored);
      expect(stored.size).toBe(3);
      expect(await counterSeq()).toBe(seqBefore);
    },
  );

  test('a mixed batch says which items are replays, which are new and which failed', async () => {
    const seen = [
      { name: 'Seen A', idempotencyKey: 'mixed-a' },
      { name: 'Seen B', idempotencyKey: 'mixed-b' },
    ];
    const earlier = await createMany(seen, 'COUNTER');
    const earlierIds = earlier.results.map(idOf);

    const mixed = await createMany(
      [
        seen[0],
        { name: 'New C', idempotencyKey: 'mixed-c' },
        seen[1],
        { name: 'New D', idempotencyKey: 'mixed-d' },
        { name: 'New D', idempotencyKey: 'mixed-d' }, // repeats the item before: its user, replayed
        { name: 'Other input', idempotencyKey: 'mixed-a' },
      ],
      'COUNTER',
    );
    expect(mixed).toMatchObject({ created: 2, replayed: 3, failed: 1 });
    expect(
      mixed.results.map((r: { replayed: boolean | null; error: { code: string } | null }) => [
        r.replayed,
        r.error?.code ?? null,
      ]),
    ).toEqual([
      [true, null],
      [false, null],
      [true, null],
      [false, null],
      [true, null],
      [null, 'IDEMPOTENCY_KEY_REUSED'],
    ]);
    const ids = mixed.results.map(idOf);
    expect([ids[0], ids[2]]).toEqual(earlierIds);
    expect(ids[4]).toBe(ids[3]);

    const stored = await storedByKey('mixed-');
    expect(stored).toEqual(
      new Map([
        ['mixed-a', earlierIds[0]],
        ['mixed-b', earlierIds[1]],
        ['mixed-c', ids[1]],
        ['mixed-d', ids[3]],
      ]),
    );
  });
});
