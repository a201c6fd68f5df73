/**
 * Sequences through the real HTTP server: peeking has no side effects, the counter list and drift,
 * concurrent allocations, the admin guard on setSequence, and the Long scalar's edges. Requests
 * without a token act as the open-access client (NODE_ENV=test); `userid` is read and set as admin.
 */
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../support/service';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const NEXT = `query Next($name: String!, $scope: String) { nextSequence(name: $name, scope: $scope) }`;
const ALLOCATE = `
  mutation Allocate($name: String!, $count: Int, $scope: String) {
    allocateSequence(name: $name, count: $count, scope: $scope) { name scope first last step count }
  }`;
const SET = `
  mutation Set($name: String!, $value: Long!, $scope: String) {
    setSequence(name: $name, value: $value, scope: $scope) { name value next }
  }`;
const CREATE_USER = `
  mutation Create($input: CreateUserInput!, $strategy: IdStrategy) {
    createUser(input: $input, strategy: $strategy) { user { id } }
  }`;

const DEFINE = `mutation Define($input: CreateSequenceInput!) { createSequence(input: $input) { name } }`;

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
  // Only createSequence creates: every sequence the tests below use is defined first.
  for (const input of [
    { name: 'invoice', scope: 'acme' },
    { name: 'fresh-under-load' },
    { name: 'batch' },
    { name: 'guarded' },
    { name: 'longs' },
  ]) {
    const defined = await service.graphql(DEFINE, { input });
    expect(defined.body.errors).toBeUndefined();
  }
});

afterAll(async () => {
  await service.stop();
});

const nextUserId = async () =>
  (await service.graphql(NEXT, { name: 'userid' }, ADMIN)).body.data.nextSequence;

test('nextSequence has no side effects and names the id the next user gets', async () => {
  expect(await nextUserId()).toBe(1);
  expect(await nextUserId()).toBe(1);
  for (let i = 0; i < 3; i += 1) {
    const peeked = await nextUserId();
    expect(await nextUserId()).toBe(peeked);
    const created = await service.graphql(CREATE_USER, { input: { name: `User ${i}` } });
    expect(created.body.data.createUser.user.id).toBe(String(peeked));
  }
  expect(await nextUserId()).toBe(4);
});

test('sequences lists userid with its definition and its drift against stored users', async () => {
  await service.graphql(CREATE_USER, {
    input: { name: 'Drift maker' },
    strategy: 'OPTIMISTIC_LOOP',
  });
  const response = await service.graphql(
    `{ sequences { name scope value next start step max updatedAt drift } }`,
    {},
    ADMIN,
  );
  expect(response.body.errors).toBeUndefined();
  const userid = response.body.data.sequences.find((s: { name: string }) => s.name === 'userid');
  const maxId = Number(
    (
      await service.client
        .db(service.dbName)
        .collection('users')
        .find()
        .sort({ _id: -1 })
        .limit(1)
        .next()
    )?._id,
  );
  expect(userid).toMatchObject({
    scope: null,
    start: 1,
    step: 1,
    max: null,
    drift: userid.value - maxId,
  });
  expect(userid.next).toBe(userid.value + 1);
  expect(userid.drift).toBe(-1); // the optimistic insert took max + 1 without moving the counter
  expect(Number.isNaN(Date.parse(userid.updatedAt))).toBe(false);
});

test('drift is null for every counter other than userid', async () => {
  await service.graphql(ALLOCATE, { name: 'invoice', scope: 'acme' });
  const response = await service.graphql(`{ sequences { name scope drift } }`, {}, ADMIN);
  const others = response.body.data.sequences.filter((s: { name: string }) => s.name !== 'userid');
  expect(others).toContainEqual({ name: 'invoice', scope: 'acme', drift: null });
  expect(others.every((s: { drift: unknown }) => s.drift === null)).toBe(true);
});

test('200 concurrent allocations of a new sequence get 200 distinct consecutive values', async () => {
  const responses = await Promise.all(
    Array.from({ length: 200 }, () => service.graphql(ALLOCATE, { name: 'fresh-under-load' })),
  );
  const firsts = responses.map((r) => {
    expect(r.body.errors).toBeUndefined();
    return r.body.data.allocateSequence.first as number;
  });
  expect(new Set(firsts).size).toBe(200);
  expect([...firsts].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  expect((await service.graphql(NEXT, { name: 'fresh-under-load' })).body.data.nextSequence).toBe(
    201,
  );
});

test('allocateSequence returns the range it consumed', async () => {
  const first = await service.graphql(ALLOCATE, { name: 'batch', count: 10 });
  expect(first.body.data.allocateSequence).toEqual({
    name: 'batch',
    scope: null,
    first: 1,
    last: 10,
    step: 1,
    count: 10,
  });
  const second = await service.graphql(ALLOCATE, { name: 'batch', count: 1 });
  expect(second.body.data.allocateSequence).toMatchObject({ first: 11, last: 11 });
});

describe('setSequence', () => {
  test('is FORBIDDEN without the admin token and changes nothing', async () => {
    const before = await service.graphql(NEXT, { name: 'guarded' });
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer wrong-token-wrong-token' },
      { authorization: TEST_ADMIN_TOKEN },
    ];
    for (const headers of attempts) {
      const response = await service.graphql(SET, { name: 'guarded', value: 500 }, headers);
      expect(response.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
    expect((await service.graphql(NEXT, { name: 'guarded' })).body).toEqual(before.body);
  });

  test('moves a counter with the admin token', async () => {
    const response = await service.graphql(SET, { name: 'guarded', value: 500 }, ADMIN);
    expect(response.body.data.setSequence).toEqual({ name: 'guarded', value: 500, next: 501 });
    expect((await service.graphql(NEXT, { name: 'guarded' })).body.data.nextSequence).toBe(501);
  });

  test('refuses moving userid back below a stored user id', async () => {
    const created = await service.graphql(CREATE_USER, { input: { name: 'Keeps its id' } });
    const id = Number(created.body.data.createUser.user.id);
    const refused = await service.graphql(SET, { name: 'userid', value: id - 1 }, ADMIN);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'value',
    });
    expect(await nextUserId()).toBe(id + 1);
    const allowed = await service.graphql(SET, { name: 'userid', value: id + 10 }, ADMIN);
    expect(allowed.body.data.setSequence.next).toBe(id + 11);
  });
});

describe('Long scalar', () => {
  const MAX = Number.MAX_SAFE_INTEGER;

  test.each([
    ['a number', 42, 42],
    ['a string of digits', '43', 43],
    ['the largest safe integer', MAX - 1, MAX - 1],
  ])('accepts %s', async (_label, value, expected) => {
    const response = await service.graphql(SET, { name: 'longs', value }, ADMIN);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.setSequence.value).toBe(expected);
  });

  test.each([
    ['a fraction', 1.5],
    ['2^53', 2 ** 53],
    ['a string beyond 2^53 - 1', '9007199254740993'],
    ['text', 'twelve'],
    ['a boolean', true],
  ])('refuses %s in variables with BAD_USER_INPUT', async (_label, value) => {
    const response = await service.graphql(SET, { name: 'longs', value }, ADMIN);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  test.each(['1.5', '9007199254740992', '"x"', 'true'])(
    'refuses the literal %s with BAD_USER_INPUT',
    async (literal) => {
      const response = await service.graphql(
        `mutation { setSequence(name: "longs", value: ${literal}) { value } }`,
        {},
        ADMIN,
      );
      expect(response.status).toBe(400);
      expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    },
  );

  test('a value beyond 2^53 - 1 is refused before anything changes', async () => {
    const before = await service.graphql(NEXT, { name: 'longs' });
    await service.graphql(SET, { name: 'longs', value: '99999999999999999999' }, ADMIN);
    expect((await service.graphql(NEXT, { name: 'longs' })).body).toEqual(before.body);
  });
});

describe('refused sequence input names its field', () => {
  const CREATE = `
    mutation Define($input: CreateSequenceInput!) {
      createSequence(input: $input) { name scope start step max value next }
    }`;

  test.each([
    ['a name starting with a digit', ALLOCATE, { name: '1abc' }, 'name'],
    ['a name with $', ALLOCATE, { name: '$inc' }, 'name'],
    ['a dotted operator-like scope', ALLOCATE, { name: 'ok', scope: '$where' }, 'scope'],
    ['a name over 64 characters', ALLOCATE, { name: `a${'b'.repeat(64)}` }, 'name'],
    ['count 0', ALLOCATE, { name: 'ok', count: 0 }, 'count'],
    ['count above 10,000', ALLOCATE, { name: 'ok', count: 10_001 }, 'count'],
    ['nextSequence of a bad name', NEXT, { name: 'bad name' }, 'name'],
    ['step 0', CREATE, { input: { name: 'stepless', step: 0 } }, 'step'],
    ['max below start', CREATE, { input: { name: 'upside', start: 10, max: 5 } }, 'max'],
  ])('%s', async (_label, operation, variables, field) => {
    const response = await service.graphql(operation, variables);
    expect(response.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
  });

  test('createSequence is idempotent and refuses a conflicting definition', async () => {
    const input = { name: 'interleaved', start: 3, step: 4, max: 100 };
    const first = await service.graphql(CREATE, { input });
    expect(first.body.data.createSequence).toEqual({
      name: 'interleaved',
      scope: null,
      start: 3,
      step: 4,
      max: 100,
      value: -1,
      next: 3,
    });
    expect((await service.graphql(CREATE, { input })).body.data).toEqual(first.body.data);
    const conflicting = await service.graphql(CREATE, { input: { ...input, step: 5 } });
    expect(conflicting.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'step',
    });
  });

  test('allocating past max is SEQUENCE_EXHAUSTED and consumes nothing', async () => {
    await service.graphql(CREATE, { input: { name: 'tiny', max: 3 } });
    const taken = await service.graphql(ALLOCATE, { name: 'tiny', count: 2 });
    expect(taken.body.data.allocateSequence).toMatchObject({ first: 1, last: 2 });
    const refused = await service.graphql(ALLOCATE, { name: 'tiny', count: 2 });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('SEQUENCE_EXHAUSTED');
    expect((await service.graphql(NEXT, { name: 'tiny' })).body.data.nextSequence).toBe(3);
  });
});
