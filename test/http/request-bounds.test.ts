/**
 * Bounds that hold for a whole HTTP request, over every alias, fragment and batched operation
 * (src/graphql/request-bounds.ts, on Apollo's document before anything runs), and the generic
 * refusal of strings that are not well-formed Unicode, naming the argument.
 */
import type { CommandStartedEvent } from 'mongodb';
import { GAPS } from '../../src/limits';
import { commandsSentTo } from '../support/commands';
import { startTestService, TEST_CLIENT, type TestService } from '../support/service';

const CLIENT = { authorization: `Bearer ${TEST_CLIENT.token}` };
const LONE_HIGH = '\ud800';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});

afterAll(async () => {
  await service.stop();
});

const userCount = () => service.client.db(service.dbName).collection('users').countDocuments();

async function post(body: unknown, headers: Record<string, string> = CLIENT) {
  const response = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, body: await response.json() };
}

/** `operations` batched operations of `aliases` aliased createUsers sharing one `items` variable. */
const aliasedBatches = (operations: number, aliases: number, items: number) =>
  Array.from({ length: operations }, (_, op) => ({
    query: `mutation($inputs: [CreateUserInput!]!) { ${Array.from({ length: aliases }, (_, i) => `a${i}: createUsers(inputs: $inputs) { created }`).join(' ')} }`,
    variables: {
      inputs: Array.from({ length: items }, (_, i) => ({ name: `op ${op} user ${i}` })),
    },
  }));

describe('users created per request', () => {
  test('finding 3: 10 batched operations x 15 aliases x 1,000 inputs is refused whole, nobody created', async () => {
    const body = aliasedBatches(10, 15, 1_000);
    expect(JSON.stringify(body).length).toBeGreaterThan(150_000);
    const before = await userCount();
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'inputs' },
    });
    expect(response.body.errors[0].message).toMatch(/at most 1000 users.*150000/);
    expect(await userCount()).toBe(before);
  });

  test('1,000 users over two batched operations is allowed; 1,001 over two aliases is not', async () => {
    const before = await userCount();
    const allowed = await post(aliasedBatches(2, 1, 500));
    expect(allowed.status).toBe(200);
    expect(
      allowed.body.map((answer: { data: { a0: { created: number } } }) => answer.data.a0.created),
    ).toEqual([500, 500]);
    expect(await userCount()).toBe(before + 1_000);
    const refused = await post({
      query:
        'mutation($inputs: [CreateUserInput!]!) { a: createUsers(inputs: $inputs) { created } b: createUser(input: { name: "one more" }) { user { id } } }',
      variables: { inputs: Array.from({ length: 1_000 }, (_, i) => ({ name: `u${i}` })) },
    });
    expect(refused.status).toBe(400);
    expect(await userCount()).toBe(before + 1_000);
  });

  test('an operation that is not selected by operationName does not count', async () => {
    const response = await post({
      query: `mutation Big($inputs: [CreateUserInput!]!) { a: createUsers(inputs: $inputs) { created } b: createUsers(inputs: $inputs) { created } }
              mutation Small { createUser(input: { name: "small" }) { user { id } } }`,
      operationName: 'Small',
      variables: { inputs: Array.from({ length: 600 }, (_, i) => ({ name: `u${i}` })) },
    });
    expect(response.status).toBe(200);
    expect(response.body.data.createUser.user.id).toEqual(expect.any(String));
  });
});

describe("a batch whose operations fail before their plan (planned on Apollo's own document)", () => {
  test('an operation that does not parse or validate lets the others of its batch run', async () => {
    const before = await userCount();
    const response = await post([
      { query: 'mutation { createUser(input: { name: "beside a broken one" }) { user { id } } }' },
      { query: 'mutation { createUser(' },
      { query: '{ noSuchField }' },
    ]);
    expect(response.status).toBe(400);
    expect(response.body[0].data.createUser.user.id).toEqual(expect.any(String));
    expect(response.body[1].errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(response.body[2].errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(await userCount()).toBe(before + 1);
  });

  test('a batch Apollo refuses whole (an item without a query) runs none of its operations', async () => {
    const before = await userCount();
    const response = await post([
      { query: 'mutation { createUser(input: { name: "never" }) { user { id } } }' },
      { query: 5 },
    ]);
    expect(response.status).toBe(400);
    expect(await userCount()).toBe(before);
  });
});

test('more than 10 allocateSequence calls in one request are refused before any runs', async () => {
  await post({
    query: 'mutation { createSequence(input: { name: "bounded" }) { sequence { name } } }',
  });
  const aliases = (count: number) =>
    Array.from(
      { length: count },
      (_, i) => `a${i}: allocateSequence(name: "bounded") { range { first } error { code } }`,
    ).join(' ');
  const refused = await post([
    { query: `mutation { ${aliases(6)} }` },
    { query: `mutation { ${aliases(5)} }` },
  ]);
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  const next = await post({ query: '{ nextSequence(name: "bounded") }' });
  expect(next.body.data.nextSequence).toBe(1);
  const allowed = await post({ query: `mutation { ${aliases(10)} }` });
  expect(allowed.body.errors).toBeUndefined();
});

describe('items listed per request (finding 4: /health must not wait behind one request)', () => {
  const sequencesPage = (aliases: number, first: number) =>
    `{ ${Array.from({ length: aliases }, (_, i) => `l${i}: sequences(first: ${first}) { edges { node { id } } }`).join(' ')} }`;

  test('10 batched operations of 6 aliased 100-item pages are refused whole', async () => {
    const response = await post(
      Array.from({ length: 10 }, () => ({ query: sequencesPage(6, 100) })),
    );
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'first',
      requestId: expect.any(String),
    });
    expect(response.body.errors[0].message).toMatch(/at most 2000 items.*6000/);
  });

  test('pages multiply through nesting: 100 users with 100 invitees each are refused, with 10 each allowed', async () => {
    const nested = (invitees: number) =>
      `query($first: Int) { users(first: $first) { edges { node { id invitees(first: ${invitees}) { totalCount } } } } }`;
    const refused = await post({ query: nested(100), variables: { first: 100 } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toMatch(/this one may list 10100/);
    const allowed = await post({ query: nested(10), variables: { first: 100 } });
    expect(allowed.status).toBe(200);
    expect(allowed.body.errors).toBeUndefined();
  });

  test('nodes(ids:) counts one item per id, multiplied through the pages below it', async () => {
    const ids = Array.from({ length: 100 }, (_, i) => String(i + 1));
    const nested = (invitees: number) =>
      `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on User { invitees(first: ${invitees}) { totalCount } } } }`;
    const refused = await post({ query: nested(100), variables: { ids } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toMatch(/this one may list 10100/);
    const allowed = await post({ query: nested(10), variables: { ids } });
    expect(allowed.status).toBe(200);
    expect(allowed.body.errors).toBeUndefined();
  });

  test('default page sizes count too, and 2,000 items in all are allowed', async () => {
    const defaults = await post({ query: sequencesPage(1, 20).replace('(first: 20)', '') });
    expect(defaults.body.errors).toBeUndefined();
    const atTheBound = await post(
      Array.from({ length: 4 }, () => ({ query: sequencesPage(5, 100) })),
    );
    expect(atTheBound.status).toBe(200);
    const overTheBound = await post(
      Array.from({ length: 4 }, (_, i) => ({ query: sequencesPage(5, i === 0 ? 101 : 100) })),
    );
    expect(overTheBound.status).toBe(400);
  });
});

describe('values read by gaps calls per request', () => {
  const USERS = 7_700;
  const gapsOf = (aliases: number) =>
    `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Sequence { ${Array.from({ length: aliases }, (_, i) => `g${i}: gaps(first: 1) { scannedThrough }`).join(' ')} } } }`;
  // The scans of stored ids (reading a sequence's state also reads the largest id: a limit of 1).
  const idScans = (commands: CommandStartedEvent[]) =>
    commands.filter(
      (c) => c.commandName === 'find' && c.command.find === 'users' && Number(c.command.limit) > 1,
    );

  beforeAll(async () => {
    const before = await userCount();
    for (let stored = 0; stored < USERS; stored += 1_000) {
      const inputs = Array.from({ length: Math.min(1_000, USERS - stored) }, (_, i) => ({
        name: `audited ${stored + i}`,
      }));
      const created = await post({
        query:
          'mutation($inputs: [CreateUserInput!]!) { createUsers(inputs: $inputs) { created } }',
        variables: { inputs },
      });
      expect(created.body.data.createUsers.created).toBe(inputs.length);
    }
    expect(await userCount()).toBe(before + USERS);
  }, 120_000);

  test('nodes naming userid 100 times for its gaps is refused up front, nothing scanned, a createUser alongside answered', async () => {
    const ids = Array.from({ length: 100 }, () => 'userid');
    const body = { query: gapsOf(1), variables: { ids } };
    expect(JSON.stringify(body).length).toBeLessThan(1_200);
    const db = service.client.db(service.dbName);
    let refused: Awaited<ReturnType<typeof post>> | undefined;
    let created: Awaited<ReturnType<typeof post>> | undefined;
    const commands = await commandsSentTo(service.client, db, async () => {
      [refused, created] = await Promise.all([
        post(body),
        post(
          {
            query:
              'mutation { createUser(input: { name: "Honest" }) { user { id } error { code } } }',
          },
          {},
        ),
      ]);
    });
    expect(refused?.status).toBe(400);
    expect(refused?.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'gaps',
      requestId: expect.any(String),
    });
    expect(refused?.body.errors[0].message).toMatch(/at most 40000 stored values.*1000000/);
    expect(created?.body.data.createUser).toMatchObject({
      user: { id: expect.any(String) },
      error: null,
    });
    expect(idScans(commands)).toEqual([]);
  });

  test('four gaps calls are allowed and read at most four batches of ids; five are refused', async () => {
    const db = service.client.db(service.dbName);
    let allowed: Awaited<ReturnType<typeof post>> | undefined;
    const commands = await commandsSentTo(service.client, db, async () => {
      allowed = await post({ query: gapsOf(4), variables: { ids: ['userid'] } });
    });
    expect(allowed?.status).toBe(200);
    expect(allowed?.body.errors).toBeUndefined();
    expect(allowed?.body.extensions.cost).toMatchObject({ scannedValues: 4 * GAPS.idsScanned });
    const finds = idScans(commands);
    expect(finds.length).toBeGreaterThan(0);
    expect(finds.length).toBe(4);
    for (const find of finds)
      expect(Number(find.command.limit)).toBeLessThanOrEqual(GAPS.idsScanned);

    const refused = await post({ query: gapsOf(5), variables: { ids: ['userid'] } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'gaps',
      requestId: expect.any(String),
    });
    const twice = await post({ query: gapsOf(3), variables: { ids: ['userid', 'userid'] } });
    expect(twice.status).toBe(400);
    expect(twice.body.errors[0].message).toMatch(/this one may read 60000/);
  });
});

describe('lone surrogates (finding 6): refused as BAD_USER_INPUT naming the argument', () => {
  const CREATE = 'mutation($input: CreateUserInput!) { createUser(input: $input) { user { id } } }';
  test.each([
    [
      'an idempotency key ending in one',
      { name: 'x', idempotencyKey: `key${LONE_HIGH}` },
      'input.idempotencyKey',
    ],
    ['a name with a lone low half', { name: `a\udc00b` }, 'input.name'],
    ['a reversed pair', { name: `a\udc00\ud800b` }, 'input.name'],
  ])('%s, through a variable', async (_name, input, field) => {
    const before = await userCount();
    const response = await post({ query: CREATE, variables: { input } });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field,
      requestId: expect.any(String),
    });
    expect(await userCount()).toBe(before);
  });

  test('a well-formed pair (an emoji) is accepted', async () => {
    const response = await post({
      query: CREATE,
      variables: { input: { name: 'Ada \ud83d\ude00' } },
    });
    expect(response.body.errors).toBeUndefined();
  });

  test.each([
    ['an escaped', 'x\\ud800'],
    ['a raw', `x${LONE_HIGH}`],
  ])('%s one in an inline literal of a createUsers item', async (_kind, text) => {
    const response = await post({
      query: `mutation { createUsers(inputs: [{ name: "fine" }, { name: "${text}" }]) { created } }`,
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'inputs.1.name',
      requestId: expect.any(String),
    });
  });

  test('in a sequence name argument', async () => {
    const response = await post({
      query: 'query($name: String!) { nextSequence(name: $name) }',
      variables: { name: `orders${LONE_HIGH}` },
    });
    expect(response.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'name',
      requestId: expect.any(String),
    });
  });
});
