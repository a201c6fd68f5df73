/**
 * Sequence names belong to their client (issue 18, "one tenant learns nothing about another";
 * src/sequences/keys.ts), through the real HTTP server in production mode, path by path: creating
 * a name another client uses answers exactly as a name nobody uses (0.3 answered "not available",
 * which told that the name was taken), and every read, allocation, reservation and list of one
 * client shows nothing of the other's sequence of the same name. The admin sees both, by their
 * stored ids. A 0.3 counter of a client, found at start, is served to it under its name.
 */
import { Long } from 'mongodb';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../support/service';

const BILLING = { client: 'billing', token: 'billing-client-token-0123456789abcdef' };
const SHOP = { client: 'shop', token: 'shop-client-token-0123456789abcdefghij' };
const CLIENT_TOKENS = [BILLING, SHOP].map(({ client, token }) => `${client}:${token}`).join(',');
const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

const SEQUENCE_FIELDS = 'id name scope owner start step max value next gapless holdSeconds';
const CREATE = `mutation($input: CreateSequenceInput!) {
  createSequence(input: $input) {
    sequence { ${SEQUENCE_FIELDS} }
    sequenceEdge { cursor }
    error { code field message retryable }
  }
}`;
const ALLOCATE = `mutation($name: String!, $count: Int) {
  allocateSequence(name: $name, count: $count) {
    range { first last } reservation { id value } sequence { id value } error { code field }
  }
}`;
const READ = `query($name: String!, $id: ID!) {
  sequence(name: $name) { id value owner }
  nextSequence(name: $name)
  node(id: $id) { id ... on Sequence { value } }
  sequences(first: 10) { edges { cursor node { id owner } } totalCount }
}`;

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { NODE_ENV: 'production', CLIENT_TOKENS } });
});

afterAll(() => service.stop());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read freely in tests
async function mutate(query: string, variables: object, token: string): Promise<any> {
  const answer = await service.graphql(query, variables, as(token));
  expect(answer.status).toBe(200);
  expect(answer.body.errors).toBeUndefined();
  return Object.values(answer.body.data as object)[0];
}

/** An answer with the name, and the id and cursor made of it, taken out. */
function withoutName(answer: string, name: string): string {
  return answer.replaceAll(name, '<name>');
}

describe('createSequence on a name another client uses', () => {
  test.each([
    ['the same definition', {}],
    ['another definition', { start: 500, max: 900 }],
    ['a gapless definition', { gapless: true }],
  ])('%s: the same answer as for a name nobody uses', async (_label, definition) => {
    const suffix = Object.keys(definition).join('') || 'same';
    const taken = `taken-${suffix}`;
    const free = `free-${suffix}`;
    await mutate(CREATE, { input: { name: taken, start: 7, step: 3 } }, BILLING.token);
    const onTaken = await service.graphql(
      CREATE,
      { input: { name: taken, ...definition } },
      as(SHOP.token),
    );
    const onFree = await service.graphql(
      CREATE,
      { input: { name: free, ...definition } },
      as(SHOP.token),
    );
    expect(onTaken.status).toBe(onFree.status);
    expect(withoutName(JSON.stringify(onTaken.body), taken)).toBe(
      withoutName(JSON.stringify(onFree.body), free),
    );
    expect(onTaken.body.data?.createSequence).toMatchObject({
      sequence: { id: taken, owner: SHOP.client },
      error: null,
    });
  });
});

describe('two clients, one name: each sees only its own', () => {
  beforeAll(async () => {
    await mutate(CREATE, { input: { name: 'invoice', start: 1000 } }, BILLING.token);
    await mutate(CREATE, { input: { name: 'invoice' } }, SHOP.token);
    await mutate(ALLOCATE, { name: 'invoice', count: 5 }, BILLING.token);
  });

  test('allocations are each its own', async () => {
    expect(await mutate(ALLOCATE, { name: 'invoice', count: 1 }, SHOP.token)).toMatchObject({
      range: { first: 1, last: 1 },
      sequence: { id: 'invoice', value: 1 },
    });
    expect(await mutate(ALLOCATE, { name: 'invoice', count: 1 }, BILLING.token)).toMatchObject({
      range: { first: 1005, last: 1005 },
      sequence: { id: 'invoice', value: 1005 },
    });
  });

  test('reads, node(id:) and lists', async () => {
    for (const [caller, owner] of [
      [SHOP, 'shop'],
      [BILLING, 'billing'],
    ] as const) {
      const read = await service.graphql(
        READ,
        { name: 'invoice', id: 'invoice' },
        as(caller.token),
      );
      expect(read.body.errors).toBeUndefined();
      const { sequence, nextSequence, node, sequences } = read.body.data;
      expect(sequence).toMatchObject({ id: 'invoice', owner });
      expect(nextSequence).toBe(sequence.value + 1);
      expect(node).toEqual({ id: 'invoice', value: sequence.value });
      const ids = sequences.edges.map((edge: { cursor: string }) => edge.cursor);
      expect(ids).toContain('invoice');
      expect(ids.some((id: string) => id.includes('~'))).toBe(false);
      expect(
        sequences.edges.every(
          (edge: { node: { owner: string | null } }) =>
            edge.node.owner === owner || edge.node.owner === null,
        ),
      ).toBe(true);
    }
  });

  test("the other client's stored id is a malformed id, as any other", async () => {
    for (const id of ['billing~invoice', 'shop~invoice', 'nobody~invoice']) {
      const answer = await service.graphql(
        'query($id: ID!) { node(id: $id) { id } }',
        { id },
        as(SHOP.token),
      );
      expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    }
  });

  test('gapless reservations: ids without the namespace, settled only by their owner', async () => {
    await mutate(CREATE, { input: { name: 'ticket', gapless: true } }, BILLING.token);
    await mutate(CREATE, { input: { name: 'ticket', gapless: true } }, SHOP.token);
    const held = await mutate(ALLOCATE, { name: 'ticket' }, BILLING.token);
    expect(held.reservation.id).toMatch(/^ticket:1:/);
    const CONFIRM = 'mutation($id: ID!) { confirmReservation(id: $id) { value error { code } } }';
    // The same id from the other client names its own ticket, which holds no such reservation.
    expect(await mutate(CONFIRM, { id: held.reservation.id }, SHOP.token)).toMatchObject({
      value: null,
      error: { code: 'RESERVATION_NOT_FOUND' },
    });
    expect(await mutate(CONFIRM, { id: held.reservation.id }, BILLING.token)).toMatchObject({
      value: 1,
      error: null,
    });
  });

  test('the admin sees both by their stored ids and names one as <client>~<name>', async () => {
    const list = await service.graphql(
      '{ sequences(first: 100) { edges { node { id owner } } } }',
      {},
      as(TEST_ADMIN_TOKEN),
    );
    const ids = list.body.data.sequences.edges.map(
      (edge: { node: { id: string } }) => edge.node.id,
    );
    expect(ids).toEqual(expect.arrayContaining(['billing~invoice', 'shop~invoice']));
    const set = await mutate(
      'mutation { setSequence(name: "shop~invoice", value: 40) { sequence { id value } error { code } } }',
      {},
      TEST_ADMIN_TOKEN,
    );
    expect(set).toEqual({ sequence: { id: 'shop~invoice', value: 40 }, error: null });
    expect(await mutate(ALLOCATE, { name: 'invoice', count: 1 }, SHOP.token)).toMatchObject({
      range: { first: 41 },
    });
  });
});

test("a client's 0.3 counter, found at start, is served to it under its name with its value", async () => {
  const dbName = `${service.dbName}-upgrade`;
  const first = await startTestService({ dbName, env: { NODE_ENV: 'production', CLIENT_TOKENS } });
  await first.client
    .db(dbName)
    .collection('counters')
    .insertOne({
      _id: 'order/eu' as never,
      name: 'order',
      scope: 'eu',
      owner: BILLING.client,
      seq: Long.fromNumber(77),
      start: Long.fromNumber(1),
      step: 1,
    });
  await first.stop();
  const upgraded = await startTestService({
    dbName,
    env: { NODE_ENV: 'production', CLIENT_TOKENS },
  });
  try {
    const answer = await upgraded.graphql(
      'mutation { allocateSequence(name: "order", scope: "eu") { range { first } sequence { id } } }',
      {},
      as(BILLING.token),
    );
    expect(answer.body.data.allocateSequence).toEqual({
      range: { first: 78 },
      sequence: { id: 'order/eu' },
    });
    const stored = await upgraded.client
      .db(dbName)
      .collection('counters')
      .find({ name: 'order' })
      .toArray();
    expect(stored.map((doc) => doc._id)).toEqual(['billing~order/eu']);
  } finally {
    await upgraded.stop();
  }
});
