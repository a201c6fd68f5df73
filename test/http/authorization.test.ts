/**
 * The authorization model (src/auth) against the documented table (docs/operations.md) and the real HTTP server:
 * - every Query and Mutation field of the schema (read through introspection) has a row in the
 *   "Who may call what" table of docs/operations.md, and the table says what src/auth decides;
 * - every field x role, sent to a production service over HTTP, is answered as the table says
 *   (refused: UNAUTHENTICATED without a valid token, FORBIDDEN with a token of too low a role);
 *   `/metrics` likewise;
 * - a wrong, truncated or malformed token is refused as UNAUTHENTICATED in every mode, for every
 *   field (createUser and viewer too); outside production a request without a token acts as the
 *   open-access client.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FIELD_ACCESS, requiredRole, type Role } from '../../src/auth';
import {
  startTestService,
  TEST_ADMIN_TOKEN,
  TEST_CLIENT,
  type TestService,
} from '../support/service';

const ROLES: Role[] = ['anonymous', 'client', 'admin'];
const RANK: Record<Role, number> = { anonymous: 0, client: 1, admin: 2 };
const HEADERS: Record<Role, Record<string, string>> = {
  anonymous: {},
  client: { authorization: `Bearer ${TEST_CLIENT.token}` },
  admin: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
};

/** A sequence each role owns (created in beforeAll), so allowed calls have something to act on. */
const own = (role: Role) => `matrix_${role}`;

/** One operation per root field; `role` picks the caller's own sequence. */
const OPERATIONS: Record<string, (role: Role) => string> = {
  'Query.viewer': () => '{ viewer { role client } }',
  'Query.node': () => `{ node(id: "${firstUserId}") { id } }`,
  'Query.nodes': (role) => `{ nodes(ids: ["${firstUserId}", "${own(role)}"]) { id } }`,
  'Query.user': () => `{ user(id: "${firstUserId}") { id } }`,
  'Query.userByEmail': () => '{ userByEmail(email: "first@example.test") { id } }',
  'Query.users': () => '{ users(first: 1) { edges { cursor } } }',
  'Query.sequence': (role) => `{ sequence(name: "${own(role)}") { id } }`,
  'Query.sequences': () => '{ sequences { edges { cursor } } }',
  'Query.nextSequence': (role) => `{ nextSequence(name: "${own(role)}") }`,
  'Query.strategyStats': () => '{ strategyStats { strategy } }',
  'Mutation.createUser': (role) =>
    `mutation { createUser(input: { name: "by ${role}" }) { user { id } error { code } } }`,
  'Mutation.createUsers': (role) =>
    `mutation { createUsers(inputs: [{ name: "batch by ${role}" }]) { created error { code } } }`,
  'Mutation.updateUser': (role) =>
    `mutation { updateUser(id: "${firstUserId}", input: { name: "renamed by ${role}" }) { user { id } error { code } } }`,
  'Mutation.deleteUser': () =>
    `mutation { deleteUser(id: "${deletableUserId}") { deletedUserId error { code } } }`,
  'Mutation.createSequence': (role) =>
    `mutation { createSequence(input: { name: "${own(role)}" }) { sequence { id } error { code } } }`,
  'Mutation.allocateSequence': (role) =>
    `mutation { allocateSequence(name: "${own(role)}") { range { first } error { code } } }`,
  'Mutation.confirmReservation': (role) =>
    `mutation { confirmReservation(id: "${heldBy(role).confirm}") { value error { code } } }`,
  'Mutation.releaseReservation': (role) =>
    `mutation { releaseReservation(id: "${heldBy(role).release}") { value error { code } } }`,
  'Mutation.confirmReservations': (role) =>
    `mutation { confirmReservations(ids: ["${heldBy(role).confirm}"]) { settled error { code } } }`,
  'Mutation.releaseReservations': (role) =>
    `mutation { releaseReservations(ids: ["${heldBy(role).release}"]) { settled error { code } } }`,
  'Mutation.importUsers': (role) =>
    `mutation { importUsers(inputs: [{ id: "70001", name: "import by ${role}" }]) { imported error { code } } }`,
  'Mutation.advanceSequence': (role) =>
    `mutation { advanceSequence(name: "${own(role)}", to: 40) { sequence { id } error { code } } }`,
  'Mutation.setSequence': (role) =>
    `mutation { setSequence(name: "${own(role)}", value: 50) { sequence { id } error { code } } }`,
  'Mutation.setSequenceFormat': () =>
    `mutation { setSequenceFormat(name: "userid", format: "C-{seq:9}") { sequence { id } error { code } } }`,
};

/**
 * The fields guarded like root fields: those that lead from a user or a payload to other users,
 * and a sequence's holes.
 */
const GUARDED_FIELDS = Object.entries(FIELD_ACCESS)
  .filter(([type]) => type !== 'Query' && type !== 'Mutation')
  .flatMap(([type, fields]) => Object.keys(fields).map((field) => `${type}.${field}`));

/** Two values of a gapless sequence the role owns, held for it: one to confirm, one to release. */
const reservations = new Map<Role, { confirm: string; release: string }>();
/** The caller's own reservations; anonymous (refused before anything runs) names the client's. */
const heldBy = (role: Role) => reservations.get(role === 'anonymous' ? 'client' : role)!;

const allowed = (role: Role, needed: Role) => RANK[role] >= RANK[needed];
const refusalFor = (role: Role) => (role === 'anonymous' ? 'UNAUTHENTICATED' : 'FORBIDDEN');

/** The documented table: `Type.field` (or the endpoint) -> the roles it marks with ✓. */
function documentedTable(): Map<string, Role[]> {
  const doc = readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8');
  const section = doc.split('\n## Who may call what\n')[1]?.split('\n## ')[0] ?? '';
  const rows = new Map<string, Role[]>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const subject = /^`([^`]+)`$/.exec(cells[1] ?? '')?.[1];
    if (subject === undefined) continue;
    rows.set(
      subject,
      ROLES.filter((_role, i) => cells[2 + i]?.startsWith('✓')),
    );
  }
  return rows;
}

let production: TestService;
let development: TestService;
let rootFields: string[];
let firstUserId: string;
/** The one user the admin's deleteUser removes (anonymous and client calls are refused first). */
let deletableUserId: string;

beforeAll(async () => {
  [production, development] = await Promise.all([
    startTestService({ env: { NODE_ENV: 'production' } }),
    startTestService(),
  ]);
  const introspection = await development.graphql(
    '{ q: __type(name: "Query") { fields { name } } m: __type(name: "Mutation") { fields { name } } }',
  );
  rootFields = [
    ...introspection.body.data.q.fields.map((f: { name: string }) => `Query.${f.name}`),
    ...introspection.body.data.m.fields.map((f: { name: string }) => `Mutation.${f.name}`),
  ];
  const first = await production.graphql(
    'mutation { createUser(input: { name: "first", email: "first@example.test" }) { user { id } } }',
  );
  firstUserId = first.body.data.createUser.user.id;
  const deletable = await production.graphql(OPERATIONS['Mutation.createUser']('anonymous'));
  deletableUserId = deletable.body.data.createUser.user.id;
  for (const role of ['client', 'admin'] as const) {
    const created = await production.graphql(
      OPERATIONS['Mutation.createSequence'](role),
      {},
      HEADERS[role],
    );
    expect(created.body.errors).toBeUndefined();
    const gapless = await production.graphql(
      `mutation { createSequence(input: { name: "gapless_${role}", gapless: true }) { error { code } } }`,
      {},
      HEADERS[role],
    );
    expect(gapless.body.data.createSequence.error).toBeNull();
    const [confirm, release] = await Promise.all(
      [1, 2].map(async () => {
        const allocated = await production.graphql(
          `mutation { allocateSequence(name: "gapless_${role}") { reservation { id } } }`,
          {},
          HEADERS[role],
        );
        return allocated.body.data.allocateSequence.reservation.id as string;
      }),
    );
    reservations.set(role, { confirm, release });
  }
});

afterAll(async () => {
  await Promise.all([production?.stop(), development?.stop()]);
});

describe('the table in docs/operations.md', () => {
  test('has a row for every Query and Mutation field of the schema, the guarded User fields, and /metrics', () => {
    const table = documentedTable();
    expect([...table.keys()].sort()).toEqual(
      [...rootFields, ...GUARDED_FIELDS, 'GET /metrics'].sort(),
    );
  });

  test('says what src/auth decides, row by row', () => {
    const table = documentedTable();
    for (const subject of [...rootFields, ...GUARDED_FIELDS]) {
      const [type, field] = subject.split('.');
      const needed = requiredRole(type, field);
      expect({ subject, roles: table.get(subject) }).toEqual({
        subject,
        roles: ROLES.filter((role) => allowed(role, needed)),
      });
    }
    expect(table.get('GET /metrics')).toEqual(['client', 'admin']);
  });

  test('src/auth has a row for every field and no row for a field the schema lacks', () => {
    const decided = Object.entries(FIELD_ACCESS)
      .filter(([type]) => type === 'Query' || type === 'Mutation')
      .flatMap(([type, fields]) => Object.keys(fields).map((field) => `${type}.${field}`));
    expect(decided.sort()).toEqual([...rootFields].sort());
  });
});

describe('every field x role over HTTP, in production', () => {
  test('the matrix covers every root field', () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual([...rootFields].sort());
  });

  const cases = Object.keys(OPERATIONS).flatMap((subject) =>
    ROLES.map((role) => [subject, role] as const),
  );
  test.each(cases)('%s as %s', async (subject, role) => {
    const [type, field] = subject.split('.');
    const response = await production.graphql(OPERATIONS[subject](role), {}, HEADERS[role]);
    const codes = (response.body.errors ?? []).map((e) => e.extensions?.code);
    if (allowed(role, requiredRole(type, field))) {
      const data = response.body.data?.[field] ?? null;
      expect({ codes, data, error: data?.error ?? null }).toEqual({
        codes: [],
        data: expect.anything(),
        error: null,
      });
    } else {
      expect({ codes, data: response.body.data?.[field] ?? null }).toEqual({
        codes: [refusalFor(role)],
        data: null,
      });
    }
  });

  test.each(ROLES)('GET /metrics as %s', async (role) => {
    const response = await fetch(`${production.url}/metrics`, {
      headers: HEADERS[role],
      signal: AbortSignal.timeout(15_000),
    });
    expect(response.status).toBe(role === 'anonymous' ? 401 : 200);
    if (role === 'anonymous') expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('tokens that are presented but not valid are UNAUTHENTICATED, in every mode', () => {
  const wrong = {
    'an unknown token': `Bearer ${'x'.repeat(40)}`,
    'the admin token minus its last character': `Bearer ${TEST_ADMIN_TOKEN.slice(0, -1)}`,
    'the admin token plus a character': `Bearer ${TEST_ADMIN_TOKEN}x`,
    'the client token in upper case': `Bearer ${TEST_CLIENT.token.toUpperCase()}`,
    'the admin token as Basic': `Basic ${TEST_ADMIN_TOKEN}`,
    'the admin token without a scheme': TEST_ADMIN_TOKEN,
    'an empty bearer': 'Bearer ',
    'the admin token with a second word': `Bearer ${TEST_ADMIN_TOKEN} x`,
  };
  test.each(Object.entries(wrong))(
    '%s: 401 UNAUTHENTICATED for every field, also those anonymous callers may call',
    async (_name, authorization) => {
      for (const service of [production, development]) {
        for (const operation of ['Mutation.setSequence', 'Query.users', 'Mutation.createUser']) {
          const response = await service.graphql(
            OPERATIONS[operation]('anonymous'),
            {},
            { authorization },
          );
          expect({ operation, status: response.status, body: response.body }).toEqual({
            operation,
            status: 401,
            body: {
              errors: [
                expect.objectContaining({
                  extensions: { code: 'UNAUTHENTICATED', requestId: expect.any(String) },
                }),
              ],
            },
          });
        }
      }
    },
  );

  test('an empty Authorization header is no token: anonymous, in production and outside', async () => {
    const production_ = await production.graphql(
      '{ viewer { role client } }',
      {},
      { authorization: '' },
    );
    expect(production_.body).toEqual({
      data: { viewer: { role: 'ANONYMOUS', client: null } },
      extensions: { cost: expect.any(Object) },
    });
    const open = await development.graphql('{ viewer { role client } }', {}, { authorization: '' });
    expect(open.body).toEqual({
      data: { viewer: { role: 'CLIENT', client: 'anonymous' } },
      extensions: { cost: expect.any(Object) },
    });
  });

  test('viewer names each valid caller', async () => {
    const client = await production.graphql('{ viewer { role client } }', {}, HEADERS.client);
    expect(client.body.data.viewer).toEqual({ role: 'CLIENT', client: TEST_CLIENT.client });
    const admin = await production.graphql('{ viewer { role client } }', {}, HEADERS.admin);
    expect(admin.body.data.viewer).toEqual({ role: 'ADMIN', client: null });
  });
});

describe('anonymous callers in production', () => {
  test('read the user they created, but not its inviter nor its invitees; a client reads both', async () => {
    const query = `mutation { createUser(input: { name: "curious", invitedById: "${firstUserId}" }) {
      user { name invitedById invitedBy { email } invitees { totalCount } } } }`;
    const anonymous = await production.graphql(query);
    expect(anonymous.body.data.createUser.user).toEqual({
      name: 'curious',
      invitedById: firstUserId,
      invitedBy: null,
      invitees: null,
    });
    expect(
      anonymous.body.errors?.map((e) => [e.path?.join('.'), e.extensions?.code]).sort(),
    ).toEqual([
      ['createUser.user.invitedBy', 'UNAUTHENTICATED'],
      ['createUser.user.invitees', 'UNAUTHENTICATED'],
    ]);
    const client = await production.graphql(query, {}, HEADERS.client);
    expect(client.body.errors).toBeUndefined();
    expect(client.body.data.createUser.user.invitedBy).toEqual({ email: 'first@example.test' });
  });

  test('create one user per request, not two through aliases nor batched operations', async () => {
    const users = production.client.db(production.dbName).collection('users');
    const before = await users.countDocuments();
    const aliased = await production.graphql(
      'mutation { a: createUser(input: { name: "a" }) { user { id } } b: createUser(input: { name: "b" }) { user { id } } }',
    );
    expect(aliased.status).toBe(401);
    expect(aliased.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const batched = await fetch(`${production.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        [1, 2].map((i) => ({ query: OPERATIONS['Mutation.createUser'](`batch ${i}` as Role) })),
      ),
      signal: AbortSignal.timeout(15_000),
    });
    expect(batched.status).toBe(401);
    expect(await users.countDocuments()).toBe(before);
  });
});

describe('outside production', () => {
  test('a request without a token acts as the open-access client: client fields, not admin ones', async () => {
    const next = await development.graphql(
      '{ sequences { edges { cursor } } strategyStats { strategy } }',
    );
    expect(next.body.errors).toBeUndefined();
    const set = await development.graphql(
      'mutation { setSequence(name: "userid", value: 5) { sequence { value } } }',
    );
    expect(set.body.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
  });
});
