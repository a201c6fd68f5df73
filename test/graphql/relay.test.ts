/**
 * What a client cache needs from the API (issue 19), through the real HTTP server:
 * - Global Object Identification: `node(id:)` and `nodes(ids:)` answer every `Node` type (the test
 *   walks the schema's implementations), with the ids of 0.3, each authorized as the field it stands
 *   for; a malformed id is BAD_USER_INPUT (so is `user(id: "abc")`);
 * - `sequences` is a full connection: both directions, `totalCount`;
 * - payloads carry what changed: `sequenceEdge`, the inviter, the deleted id, and `query`;
 * - the counter `createUser` advances is readable without a token outside production, and its reads
 *   advance with each creation; production anonymous callers still read no sequence;
 * - CORS lets Apollo Client name itself.
 */
import {
  ADMIN_HEADERS as ADMIN,
  CLIENT_HEADERS as CLIENT,
  startTestService,
  type TestService,
} from '../support/service';
const codes = (response: { body: { errors?: Array<{ extensions?: { code?: unknown } }> } }) =>
  (response.body.errors ?? []).map((error) => error.extensions?.code);

let service: TestService;
let production: TestService;

beforeAll(async () => {
  [service, production] = await Promise.all([
    startTestService(),
    startTestService({ env: { NODE_ENV: 'production' } }),
  ]);
});

afterAll(async () => {
  await Promise.all([service?.stop(), production?.stop()]);
});

const CREATE_USER = `mutation ($input: CreateUserInput!) {
  createUser(input: $input) {
    user { id } userEdge { cursor node { id } } inviter { id invitees { totalCount } }
    query { users(last: 1) { edges { node { id } } totalCount } }
    error { code }
  }
}`;
const DEFINE = `mutation ($input: CreateSequenceInput!) {
  createSequence(input: $input) {
    sequence { id } sequenceEdge { cursor node { id next } } query { sequences { totalCount } }
    error { code }
  }
}`;

describe('node(id:) and nodes(ids:)', () => {
  test('answer every Node type by the id it has had since 0.3', async () => {
    const implementations = await service.graphql(
      '{ __type(name: "Node") { possibleTypes { name } } }',
    );
    const types = implementations.body.data.__type.possibleTypes.map(
      (type: { name: string }) => type.name,
    );
    expect(types.sort()).toEqual(['Sequence', 'User']);
    const user = await service.graphql(CREATE_USER, { input: { name: 'Node walker' } });
    const sequence = await service.graphql(DEFINE, { input: { name: 'walked', scope: 'acme' } });
    const ids: Record<string, string> = {
      User: user.body.data.createUser.user.id,
      Sequence: sequence.body.data.createSequence.sequence.id,
    };
    expect(ids.User).toMatch(/^[0-9]+$/);
    expect(ids.Sequence).toBe('walked/acme');
    for (const type of types) {
      const found = await service.graphql(
        `query ($id: ID!) { node(id: $id) { __typename id ... on User { name } ... on Sequence { next } } }`,
        { id: ids[type] },
      );
      expect(found.body.errors).toBeUndefined();
      expect(found.body.data.node).toMatchObject({ __typename: type, id: ids[type] });
    }
    const many = await service.graphql(
      'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }',
      { ids: [ids.Sequence, '999999', ids.User] },
    );
    expect(many.body.data.nodes).toEqual([
      { __typename: 'Sequence', id: ids.Sequence },
      null,
      { __typename: 'User', id: ids.User },
    ]);
  });

  test('answer as the field they stand for: another client’s sequence is null, userid is there', async () => {
    const theirs = await service.graphql(DEFINE, { input: { name: 'theirs' } }, CLIENT);
    expect(theirs.body.data.createSequence.error).toBeNull();
    const asOpenAccess = await service.graphql('{ node(id: "theirs") { id } }');
    expect(asOpenAccess.body).toEqual({
      data: { node: null },
      extensions: { cost: expect.any(Object) },
    });
    const asOwner = await service.graphql('{ node(id: "theirs") { id } }', {}, CLIENT);
    expect(asOwner.body).toEqual({
      data: { node: { id: 'theirs' } },
      extensions: { cost: expect.any(Object) },
    });
    const userid = await service.graphql('{ node(id: "userid") { id ... on Sequence { next } } }');
    expect(userid.body.data.node).toEqual({ id: 'userid', next: expect.any(Number) });
    const anonymous = await production.graphql('{ node(id: "1") { id } }');
    expect(codes(anonymous)).toEqual(['UNAUTHENTICATED']);
  });

  test('refuse malformed ids and too many of them as BAD_USER_INPUT; so does user(id:)', async () => {
    for (const query of [
      '{ node(id: "-1") { id } }',
      '{ node(id: "12abc") { id } }',
      '{ node(id: "a/b/c") { id } }',
      '{ user(id: "abc") { id } }',
      `{ nodes(ids: [${Array.from({ length: 101 }, (_, i) => `"${i + 1}"`).join(',')}]) { id } }`,
    ]) {
      const response = await service.graphql(query);
      expect({ query, codes: codes(response) }).toEqual({ query, codes: ['BAD_USER_INPUT'] });
    }
    const missing = await service.graphql('{ user(id: "987654") { id } }');
    expect(missing.body).toEqual({
      data: { user: null },
      extensions: { cost: expect.any(Object) },
    });
  });
});

describe('sequences, a full connection', () => {
  const PAGE = `query ($first: Int, $after: String, $last: Int, $before: String, $scope: String) {
    sequences(first: $first, after: $after, last: $last, before: $before, scope: $scope) {
      edges { cursor } totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }`;

  test('pages forward and backward over the same order, with totalCount', async () => {
    for (const input of [
      { name: 'pg', scope: 'b' },
      { name: 'pg' },
      { name: 'pg', scope: 'a' },
      { name: 'ph' },
      { name: 'pf', scope: 'z' },
    ]) {
      expect((await service.graphql(DEFINE, { input }, ADMIN)).body.data.createSequence.error).toBe(
        null,
      );
    }
    const all = await service.graphql(PAGE, { first: 100 }, ADMIN);
    const order = all.body.data.sequences.edges.map((edge: { cursor: string }) => edge.cursor);
    expect(all.body.data.sequences.totalCount).toBe(order.length);
    const at = order.indexOf('pg');
    expect(order.slice(at - 1, at + 4)).toEqual(['pf/z', 'pg', 'pg/a', 'pg/b', 'ph']);

    const forward = await service.graphql(PAGE, { first: 2, after: 'pf/z' }, ADMIN);
    expect(forward.body.data.sequences).toMatchObject({
      edges: [{ cursor: 'pg' }, { cursor: 'pg/a' }],
      pageInfo: { hasNextPage: true, hasPreviousPage: true, startCursor: 'pg', endCursor: 'pg/a' },
    });
    const backward = await service.graphql(PAGE, { last: 2, before: 'pg/b' }, ADMIN);
    expect(backward.body.data.sequences).toMatchObject({
      edges: [{ cursor: 'pg' }, { cursor: 'pg/a' }],
      pageInfo: { hasNextPage: true, hasPreviousPage: true },
    });
    const beforeUnscoped = await service.graphql(PAGE, { last: 1, before: 'pg' }, ADMIN);
    expect(beforeUnscoped.body.data.sequences.edges).toEqual([{ cursor: 'pf/z' }]);
    const tail = await service.graphql(PAGE, { last: 2 }, ADMIN);
    expect(tail.body.data.sequences).toMatchObject({
      edges: order.slice(-2).map((cursor: string) => ({ cursor })),
      pageInfo: { hasNextPage: false, hasPreviousPage: true },
    });
    const head = await service.graphql(PAGE, { first: 1 }, ADMIN);
    expect(head.body.data.sequences.pageInfo).toMatchObject({ hasPreviousPage: false });
    const scoped = await service.graphql(PAGE, { scope: 'a' }, ADMIN);
    expect(scoped.body.data.sequences).toMatchObject({
      edges: [{ cursor: 'pg/a' }],
      totalCount: 1,
    });
    const both = await service.graphql(PAGE, { first: 1, last: 1 }, ADMIN);
    expect(codes(both)).toEqual(['BAD_USER_INPUT']);
  });
});

describe('payloads carry what changed', () => {
  test('createUser: the edge, the inviter with its invitees, and the query root', async () => {
    const inviter = await service.graphql(CREATE_USER, { input: { name: 'Inviter' } });
    const inviterId = inviter.body.data.createUser.user.id;
    expect(inviter.body.data.createUser.inviter).toBeNull();
    const invited = await service.graphql(CREATE_USER, {
      input: { name: 'Invited', invitedById: inviterId },
    });
    const payload = invited.body.data.createUser;
    expect(payload.userEdge).toEqual({ cursor: payload.user.id, node: { id: payload.user.id } });
    expect(payload.inviter).toEqual({ id: inviterId, invitees: { totalCount: 1 } });
    expect(payload.query.users.edges).toEqual([{ node: { id: payload.user.id } }]);
  });

  test('deleteUser: the id, the user, and the inviter whose invitees lost it', async () => {
    const inviter = await service.graphql(CREATE_USER, { input: { name: 'Keeps' } });
    const inviterId = inviter.body.data.createUser.user.id;
    const invited = await service.graphql(CREATE_USER, {
      input: { name: 'Leaves', invitedById: inviterId },
    });
    const deleted = await service.graphql(
      `mutation ($id: ID!) { deleteUser(id: $id) {
        deletedUserId user { id } inviter { id invitees { totalCount } }
        query { user(id: $id) { id } } error { code } } }`,
      { id: invited.body.data.createUser.user.id },
      ADMIN,
    );
    expect(deleted.body.data.deleteUser).toEqual({
      deletedUserId: invited.body.data.createUser.user.id,
      user: { id: invited.body.data.createUser.user.id },
      inviter: { id: inviterId, invitees: { totalCount: 0 } },
      query: { user: null },
      error: null,
    });
  });

  test('createSequence: the edge and the query root; failures carry no edge', async () => {
    const created = await service.graphql(DEFINE, { input: { name: 'edged' } });
    expect(created.body.data.createSequence).toMatchObject({
      sequence: { id: 'edged' },
      sequenceEdge: { cursor: 'edged', node: { id: 'edged', next: 1 } },
      query: { sequences: { totalCount: expect.any(Number) } },
      error: null,
    });
    const conflicting = await service.graphql(DEFINE, { input: { name: 'edged', step: 2 } });
    expect(conflicting.body.data.createSequence).toMatchObject({
      sequence: null,
      sequenceEdge: null,
      error: { code: 'BAD_USER_INPUT' },
    });
  });

  test('an anonymous production caller reads no inviter through a payload', async () => {
    const inviter = await production.graphql(CREATE_USER.replace(/inviter \{[^}]*\} \}/, ''), {
      input: { name: 'Prod inviter' },
    });
    const inviterId = inviter.body.data.createUser.user.id;
    const invited = await production.graphql(
      'mutation ($input: CreateUserInput!) { createUser(input: $input) { user { id } inviter { id } } }',
      { input: { name: 'Prod invited', invitedById: inviterId } },
    );
    expect(invited.body.data.createUser).toEqual({
      user: { id: expect.any(String) },
      inviter: null,
    });
    expect(codes(invited)).toEqual(['UNAUTHENTICATED']);
  });
});

describe('the counter in the Sandbox', () => {
  test('without a token outside production, userid reads, lists and advances with createUser', async () => {
    const READ = `{ nextSequence(name: "userid") sequence(name: "userid") { id next }
      sequences(first: 100) { edges { node { id next } } } }`;
    const before = await service.graphql(READ);
    expect(before.body.errors).toBeUndefined();
    const next = before.body.data.nextSequence;
    expect(before.body.data.sequence).toEqual({ id: 'userid', next });
    expect(before.body.data.sequences.edges).toContainEqual({ node: { id: 'userid', next } });
    const created = await service.graphql(CREATE_USER, { input: { name: 'Advances it' } });
    expect(Number(created.body.data.createUser.user.id)).toBe(next);
    const after = await service.graphql(READ);
    expect(after.body.data.nextSequence).toBe(next + 1);
    expect(after.body.data.sequences.edges).toContainEqual({
      node: { id: 'userid', next: next + 1 },
    });
    const allocate = await service.graphql(
      'mutation { allocateSequence(name: "userid") { error { code } } }',
    );
    expect(codes(allocate).concat(allocate.body.data.allocateSequence?.error?.code ?? [])).toEqual([
      'FORBIDDEN',
    ]);
  });

  test('production anonymous callers still read no sequence', async () => {
    for (const query of [
      '{ nextSequence(name: "userid") }',
      '{ sequence(name: "userid") { id } }',
      '{ sequences { totalCount } }',
    ]) {
      expect(codes(await production.graphql(query))).toEqual(['UNAUTHENTICATED']);
    }
  });
});

describe('viewer.limits and extensions.cost', () => {
  const LIMITS =
    '{ viewer { limits { usersCreated sequenceAllocations listedItems scannedValues pageSize } } }';

  test('viewer.limits names the bounds of the caller', async () => {
    const open = await service.graphql(LIMITS);
    expect(open.body.data.viewer.limits).toEqual({
      usersCreated: 1000,
      sequenceAllocations: 10,
      listedItems: 2000,
      scannedValues: 40_000,
      pageSize: 100,
    });
    const anonymous = await production.graphql(LIMITS);
    expect(anonymous.body.data.viewer.limits.usersCreated).toBe(1);
  });

  test('every answer says how much of them the whole request used', async () => {
    const nested = await service.graphql(
      '{ users(first: 30) { edges { node { id invitees(first: 2) { totalCount } } } } }',
    );
    expect(nested.body.extensions).toEqual({
      cost: {
        usersCreated: 0,
        sequenceAllocations: 0,
        listedItems: 30 + 30 * 2,
        scannedValues: 0,
      },
    });
    const batch = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { query: '{ sequences(first: 7) { totalCount } }' },
        { query: 'mutation { createUser(input: { name: "Costed" }) { user { id } } }' },
      ]),
      signal: AbortSignal.timeout(15_000),
    });
    const answers = (await batch.json()) as Array<{ extensions: unknown }>;
    expect(answers.map((answer) => answer.extensions)).toEqual([
      { cost: { usersCreated: 1, sequenceAllocations: 0, listedItems: 7, scannedValues: 0 } },
      { cost: { usersCreated: 1, sequenceAllocations: 0, listedItems: 7, scannedValues: 0 } },
    ]);
  });
});

test('CORS: a preflight allows the headers Apollo Client sends', async () => {
  const cors = await startTestService({ env: { CORS_ORIGINS: 'https://app.example.test' } });
  try {
    const response = await fetch(`${cors.url}/graphql`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers':
          'content-type,apollographql-client-name,apollographql-client-version',
      },
      signal: AbortSignal.timeout(15_000),
    });
    expect(response.status).toBe(204);
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(',');
    expect(allowed).toEqual(
      expect.arrayContaining(['apollographql-client-name', 'apollographql-client-version']),
    );
  } finally {
    await cors.stop();
  }
});
