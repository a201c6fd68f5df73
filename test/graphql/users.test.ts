/**
 * Users through the real HTTP server: round trip, ids per strategy, paging, validation errors, and
 * ids past 2^31 stored as Int64.
 */
import {
  startTestService,
  TEST_ADMIN_TOKEN,
  type GraphQLResponse,
  type TestService,
} from '../support/service';

interface UsersPage {
  edges: Array<{ cursor: string; node: { id: string } }>;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const CREATE_USER = `
  mutation Create($input: CreateUserInput!, $strategy: IdStrategy) {
    createUser(input: $input, strategy: $strategy) {
      user { id name email createdWith createdAt invitedBy { id name } }
      strategy attempts replayed
    }
  }`;

const USER = `query One($id: ID!) { user(id: $id) { id name email createdWith createdAt invitedBy { id } } }`;
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

const STRATEGIES = ['COUNTER', 'OPTIMISTIC_LOOP', 'BLOCK'] as const;

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
  return response.body.data.createUser;
}

test('a created user reads back with the same fields', async () => {
  const inviter = await createUser({ name: 'Grace Hopper', email: 'grace@example.com' });
  const created = await createUser({
    name: '  Ada  ',
    email: 'Ada@Example.com',
    invitedById: inviter.user.id,
  });
  expect(created).toMatchObject({ strategy: 'COUNTER', attempts: 1, replayed: false });
  expect(created.user).toMatchObject({
    name: 'Ada',
    email: 'ada@example.com',
    createdWith: 'COUNTER',
    invitedBy: { id: inviter.user.id, name: 'Grace Hopper' },
  });
  expect(new Date(created.user.createdAt).toISOString()).toBe(created.user.createdAt);

  const read = await service.graphql(USER, { id: created.user.id });
  expect(read.status).toBe(200);
  expect(read.body.data.user).toEqual({
    id: created.user.id,
    name: 'Ada',
    email: 'ada@example.com',
    createdWith: 'COUNTER',
    createdAt: created.user.createdAt,
    invitedBy: { id: inviter.user.id },
  });
});

test('a user that does not exist reads as null', async () => {
  const read = await service.graphql(USER, { id: '987654321' });
  expect(read.body).toEqual({ data: { user: null } });
});

test.each(STRATEGIES)('%s issues consecutive ids to consecutive requests', async (strategy) => {
  const ids: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const created = await createUser({ name: `${strategy} ${i}` }, strategy);
    expect(created.user.createdWith).toBe(strategy);
    ids.push(Number(created.user.id));
  }
  expect(ids).toEqual(ids.map((_, i) => ids[0] + i));
});

test('users pages through every user in id order', async () => {
  const seen: number[] = [];
  let after: string | null = null;
  for (let page = 0; page < 100; page += 1) {
    const response: GraphQLResponse<{ users: UsersPage }> = await service.graphql(
      `query Page($after: ID) { users(first: 4, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }`,
      { after },
    );
    const { edges, pageInfo } = response.body.data!.users;
    for (const edge of edges) {
      expect(edge.cursor).toBe(edge.node.id);
      seen.push(Number(edge.node.id));
    }
    if (!pageInfo.hasNextPage) break;
    after = pageInfo.endCursor;
  }
  const stored = await service.client
    .db(service.dbName)
    .collection('users')
    .find({}, { projection: { _id: 1 }, sort: { _id: 1 } })
    .toArray();
  expect(seen).toEqual(stored.map((doc) => Number(doc._id)));
  expect(seen.length).toBeGreaterThan(10);
});

describe('refused input names its field and consumes no id', () => {
  const cases: Array<[string, object, string]> = [
    ['empty name', { name: '   ' }, 'name'],
    ['name over 100 characters', { name: 'x'.repeat(101) }, 'name'],
    ['control character in name', { name: 'bad\u0007name' }, 'name'],
    ['malformed email', { name: 'Bob', email: 'not-an-email' }, 'email'],
    ['unknown inviter', { name: 'Bob', invitedById: '99999999' }, 'invitedById'],
    ['non-numeric inviter', { name: 'Bob', invitedById: 'abc' }, 'invitedById'],
    ['empty idempotency key', { name: 'Bob', idempotencyKey: '' }, 'idempotencyKey'],
    [
      'idempotency key over 128 characters',
      { name: 'Bob', idempotencyKey: 'k'.repeat(129) },
      'idempotencyKey',
    ],
  ];

  test.each(cases)('%s', async (_label, input, field) => {
    const before = await service.graphql(`{ nextSequence(name: "userid") }`, {}, ADMIN);
    const response = await service.graphql(CREATE_USER, { input });
    expect(response.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(response.body.data ?? null).toBeNull();
    const after = await service.graphql(`{ nextSequence(name: "userid") }`, {}, ADMIN);
    expect(after.body.data.nextSequence).toBe(before.body.data.nextSequence);
  });

  test.each(STRATEGIES)('a duplicate email under %s', async (strategy) => {
    const email = `dup-${strategy.toLowerCase()}@example.com`;
    await createUser({ name: 'First', email });
    const response = await service.graphql(CREATE_USER, {
      input: { name: 'Second', email },
      strategy,
    });
    expect(response.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'email',
    });
  });

  test.each([0, 101, -1])('users(first: %d)', async (first) => {
    const response = await service.graphql(
      `query P($first: Int) { users(first: $first) { edges { cursor } } }`,
      {
        first,
      },
    );
    expect(response.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'first',
    });
  });
});

test('an id above 2^31 round-trips and is stored as Int64', async () => {
  const value = 2 ** 31 + 7;
  const set = await service.graphql(
    `mutation Set($value: Long!) { setSequence(name: "userid", value: $value) { value next } }`,
    { value },
    ADMIN,
  );
  expect(set.body.errors).toBeUndefined();
  expect(set.body.data.setSequence).toEqual({ value, next: value + 1 });

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

test('createUsers answers one result per input, in order, and a bad item fails alone', async () => {
  const response = await service.graphql(
    `mutation Many($inputs: [CreateUserInput!]!, $strategy: IdStrategy) {
      createUsers(inputs: $inputs, strategy: $strategy) {
        strategy created failed
        results { index user { id name } error { code field message } }
      }
    }`,
    {
      strategy: 'BLOCK',
      inputs: [
        { name: 'Batch one', email: 'batch@example.com' },
        { name: 'Batch two', email: 'batch@example.com' },
        { name: '' },
        { name: 'Batch four' },
      ],
    },
  );
  expect(response.body.errors).toBeUndefined();
  const payload = response.body.data.createUsers;
  expect(payload).toMatchObject({ strategy: 'BLOCK', created: 2, failed: 2 });
  expect(payload.results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3]);
  expect(payload.results[0]).toMatchObject({ user: { name: 'Batch one' }, error: null });
  expect(payload.results[1]).toMatchObject({
    user: null,
    error: { code: 'BAD_USER_INPUT', field: 'email' },
  });
  expect(payload.results[2]).toMatchObject({
    user: null,
    error: { code: 'BAD_USER_INPUT', field: 'name' },
  });
  expect(payload.results[3]).toMatchObject({ user: { name: 'Batch four' }, error: null });
  expect(payload.results[1].error.message).toEqual(expect.any(String));
});
