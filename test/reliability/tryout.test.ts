/**
 * Findings of trying the 0.2 service as its callers would (issues 11-13), each kept as a test.
 *
 * - A fragment bomb: fragments spreading the next one twice, level after level, make a document of
 *   a few hundred bytes whose spreads expand to 2^levels selections. The request plan read before
 *   execution (now src/graphql/request-bounds.ts) walked every expansion, so a request without a token
 *   held the event loop for good (22 levels took seconds, 40 never ended), `/health` included. The
 *   plan must stay exact (every spread counts) without walking the expansion.
 * - Deeply nested JSON in `variables` (valid JSON; `JSON.parse` reads it) overflowed the stack of
 *   the lone-surrogate check and was answered 500 INTERNAL_SERVER_ERROR; it must be refused as
 *   the client's input: 400 BAD_USER_INPUT (since issue 18, for nesting deeper than any argument).
 * - Automatic persisted queries (APQ) let a request name its document by hash alone, and the request
 *   plan only reads documents sent as text: registering `mutation A` (one user) beside `mutation B`
 *   (three) under `operationName: "A"`, then sending B's hash alone, created three users in one
 *   request without a token. The plan must read the document the hash stands for.
 * - A variable named like a property every object inherits (`$constructor`, `$toString`) and not
 *   sent was read as that inherited function, not its default: `users(first: $constructor)` with a
 *   default of 100 was planned as 20 items, and a default list of users to create as one user.
 * - `Authorization: bearer <token>` was taken for no token: HTTP's authentication scheme is
 *   case-insensitive and may be followed by more than one space (RFC 9110, section 11.1), so
 *   clients and proxies that write the scheme differently must still be let in with their role.
 */
import { createHash } from 'node:crypto';
import type { Db, MongoClient } from 'mongodb';
import { createAuthenticator } from '../../src/auth/callers';
import { buildSchema, Kind, parse } from 'graphql';
import { tallyOperation } from '../../src/graphql/request-bounds';
import { loadTypeDefs } from '../../src/graphql/schema';
import { connectTestClient, uniqueDbName } from '../support/db';
import { startTestService, type TestService } from '../support/service';

const schema = buildSchema(loadTypeDefs());

/** What the first operation of `query` asks for, as the request-bounds plugin reads it. */
function planRequest([{ query, variables }]: Array<{ query: string; variables?: object }>) {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (operation?.kind !== Kind.OPERATION_DEFINITION) throw new Error('no operation');
  return tallyOperation(schema, document, operation, variables);
}

/** `levels` fragments, each spreading the next twice; the last one holds `leaf`. */
function fragmentBomb(operation: 'query' | 'mutation', levels: number, leaf: string): string {
  const type = operation === 'query' ? 'Query' : 'Mutation';
  const fragments = Array.from(
    { length: levels },
    (_, level) => `fragment F${level} on ${type} { ...F${level + 1} ...F${level + 1} }`,
  );
  return `${operation} { ...F0 } ${fragments.join(' ')} fragment F${levels} on ${type} { ${leaf} }`;
}

/** A JSON text nesting `depth` arrays around `innermost`. */
function nestedArrays(depth: number, innermost: string): string {
  return `${'['.repeat(depth)}${innermost}${']'.repeat(depth)}`;
}

describe('the request plan of a fragment bomb', () => {
  it('counts every spread without walking the expansion', () => {
    const levels = 60;
    const mutation = planRequest([
      {
        query: fragmentBomb('mutation', levels, 'createUser(input: { name: "x" }) { user { id } }'),
      },
    ]);
    expect(mutation.usersCreated).toBe(2 ** levels);
    const query = planRequest([
      { query: fragmentBomb('query', levels, 'users(first: 3) { edges { node { id } } }') },
    ]);
    expect(query.listedItems).toBe(3 * 2 ** levels);
  });

  it('multiplies a fragment used under pages by the page sizes above each use', () => {
    const plan = planRequest([
      {
        query:
          'query { users(first: 5) { edges { node { ...N } } } a: users(first: 7) { edges { node { ...N } } } } ' +
          'fragment N on User { invitees(first: 3) { edges { node { id } } } }',
      },
    ]);
    expect(plan.listedItems).toBe(5 + 5 * 3 + 7 + 7 * 3);
  });
});

describe('the request plan of variables named like inherited properties', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])(
    'reads the default of $%s when it is not sent',
    (name) => {
      const pages = planRequest([
        {
          query: `query ($${name}: Int = 100) { users(first: $${name}) { edges { node { invitees(first: 100) { totalCount } } } } }`,
          variables: {},
        },
      ]);
      expect(pages.listedItems).toBe(100 + 100 * 100);
      const creates = planRequest([
        {
          query: `mutation ($${name}: [CreateUserInput!]! = [{ name: "a" }, { name: "b" }, { name: "c" }]) { createUsers(inputs: $${name}) { created } }`,
          variables: {},
        },
      ]);
      expect(creates.usersCreated).toBe(3);
    },
  );
});

describe('the Authorization header', () => {
  const token = 'tryout-client-token-0123456789abcdefgh';
  const authenticate = createAuthenticator({
    NODE_ENV: 'production',
    CLIENT_TOKENS: [{ client: 'billing', token }],
  });

  it.each(['Bearer', 'bearer', 'BEARER', 'Bearer  '])('accepts the scheme written %j', (scheme) => {
    expect(authenticate(`${scheme} ${token}`)).toEqual({ role: 'client', client: 'billing' });
  });

  it.each([`Basic ${token}`, token, `Bearer ${token}x`, `Bearer${token}`, `Bearer ${token} x`])(
    'proves no one with %j (refused, never taken for no token)',
    (header) => {
      expect(authenticate(header)).toBeNull();
    },
  );

  it.each([undefined, '', '  '])('takes %j for no token', (header) => {
    expect(authenticate(header)).toEqual({ role: 'anonymous' });
  });
});

describe('hostile requests to the production service', () => {
  let client: MongoClient;
  let db: Db;
  let service: TestService;

  beforeAll(async () => {
    const dbName = uniqueDbName();
    client = await connectTestClient();
    db = client.db(dbName);
    service = await startTestService({ dbName, env: { NODE_ENV: 'production' } });
  });

  afterAll(async () => {
    await service?.stop();
    await client?.close();
  });

  const post = async (body: string) => {
    const response = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('refuses a fragment bomb without a token, creates nothing, and /health still answers', async () => {
    const leaf = 'createUser(input: { name: "bomb" }) { user { id } }';
    // 40 levels ask for 2^40 users; graphql-armor's cost refuses the document in validation.
    const answer = await post(JSON.stringify({ query: fragmentBomb('mutation', 40, leaf) }));
    expect(answer.status).toBe(400);
    const codes = (answer.body.errors as Array<{ extensions: { code: string } }>).map(
      (error) => error.extensions.code,
    );
    expect(new Set(codes)).toEqual(new Set(['GRAPHQL_VALIDATION_FAILED']));
    // 2 levels pass validation and ask for 4 users: the request's bounds refuse it whole.
    const small = await post(JSON.stringify({ query: fragmentBomb('mutation', 2, leaf) }));
    expect(small.status).toBe(401);
    expect(small.body).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
    const health = await fetch(`${service.url}/health`);
    expect(health.status).toBe(200);
    expect(await db.collection('users').countDocuments()).toBe(0);
  });

  const persisted = (query: string) => ({
    persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') },
  });

  it('plans a persisted query sent by hash alone: no more users than the caller may create', async () => {
    const query =
      'mutation A { createUser(input: { name: "apq" }) { user { id } } } ' +
      'mutation B { a: createUser(input: { name: "apq" }) { user { id } } ' +
      'b: createUser(input: { name: "apq" }) { user { id } } }';
    const registered = await post(
      JSON.stringify({ query, operationName: 'A', extensions: persisted(query) }),
    );
    expect(registered.body).toMatchObject({
      data: { createUser: { user: { id: expect.any(String) } } },
    });
    const byHash = await post(JSON.stringify({ operationName: 'B', extensions: persisted(query) }));
    expect(byHash.status).toBe(401);
    expect(byHash.body).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
    expect(await db.collection('users').countDocuments({ name: 'apq' })).toBe(1);
  });

  it('still answers a persisted query by hash, and PERSISTED_QUERY_NOT_FOUND for an unknown hash', async () => {
    const query = '{ __typename }';
    await post(JSON.stringify({ query, extensions: persisted(query) }));
    const byHash = await post(JSON.stringify({ extensions: persisted(query) }));
    expect(byHash.body).toEqual({
      data: { __typename: 'Query' },
      extensions: { cost: expect.any(Object) },
    });
    const unknown = await post(JSON.stringify({ extensions: persisted('{ never }') }));
    expect(unknown.body).toMatchObject({
      errors: [{ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }],
    });
  });

  it('refuses deeply nested JSON variables as bad input naming them, instead of answering 500', async () => {
    const query = JSON.stringify(
      'mutation { createUser(input: { name: "deep" }) { user { name } } }',
    );
    const answer = await post(
      `{"query":${query},"variables":{"unused":${nestedArrays(100_000, '"x"')}}}`,
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      errors: [{ extensions: { code: 'BAD_USER_INPUT', field: 'unused.0.0.0.0' } }],
    });
    expect(await db.collection('users').countDocuments({ name: 'deep' })).toBe(0);
  });

  it('finds a lone surrogate at the bottom of deeply nested JSON variables', async () => {
    const query = JSON.stringify(
      'mutation { createUser(input: { name: "lone" }) { user { id } } }',
    );
    const answer = await post(
      `{"query":${query},"variables":{"unused":${nestedArrays(100_000, '"\\ud800"')}}}`,
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
    expect(await db.collection('users').countDocuments({ name: 'lone' })).toBe(0);
  });
});
