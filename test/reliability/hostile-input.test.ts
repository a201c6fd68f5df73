/**
 * The hostile-input table: requests an attacker or a broken client sends, and what each must get.
 *
 * Every request in the table must be refused: a 4xx, or a GraphQL error with the `extensions.code`
 * the table names (never a 500, never INTERNAL_SERVER_ERROR, never data from a refused mutation),
 * and the database (every collection, every document) must be byte-for-byte the same afterwards.
 * Operator-looking strings in the free-text fields a user may legitimately type (`name`,
 * `idempotencyKey`) are not refused: they must be stored as the literal text, which the last test
 * checks; everywhere else (ids, cursors, sequence names and scopes, emails) they are refused.
 * A second instance in production mode checks what production hides: introspection, the landing
 * page, stack traces and field suggestions.
 */
import { sentKeyFilter } from '../support/keys';
import type { Db, MongoClient } from 'mongodb';
import { EJSON } from 'bson';
import { connectTestClient, uniqueDbName } from '../support/db';
import { startTestService, type TestService } from '../support/service';
import {
  createUser,
  errorCodes,
  postGraphQL,
  sendHttp,
  type GraphQLResultLike,
  type HttpResult,
} from './client';

const ADMIN_TOKEN = 'hostile-suite-admin-token-0123456789';
const BODY_LIMIT_BYTES = 100 * 1024;
const FAKE_OPERATOR = '{"$gt": ""}';

interface HostileRequest {
  method?: 'GET' | 'POST';
  /** Path and query string after the service URL; `/graphql` when omitted. */
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

interface HostileCase {
  name: string;
  request: HostileRequest;
  /** The exact HTTP status, when the contract fixes it. */
  status?: number;
  /** The `extensions.code` at least one top-level error must carry. */
  code?: string;
  /** Sent to the production instance (no open defaults) instead of the development one. */
  production?: true;
}

const json = (payload: unknown, headers: Record<string, string> = {}): HostileRequest => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(payload),
});
const gql = (query: string, variables?: object, headers?: Record<string, string>) =>
  json({ query, variables }, headers);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const repeat = (count: number, make: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => make(i)).join(' ');

const NESTED_INVITERS = `query { users(first: 1) { edges { node { ${'invitedBy { '.repeat(12)}id${' }'.repeat(12)} } } } }`;
const SET_SEQUENCE =
  'mutation($name: String!, $value: Long!, $scope: String) { setSequence(name: $name, value: $value, scope: $scope) { sequence { value } error { code } } }';
const ALLOCATE =
  'mutation($name: String!, $count: Int, $scope: String) { allocateSequence(name: $name, count: $count, scope: $scope) { range { first last } error { code } } }';
const CREATE_SEQUENCE =
  'mutation($input: CreateSequenceInput!) { createSequence(input: $input) { sequence { name } error { code } } }';
const NEXT_SEQUENCE =
  'query($name: String!, $scope: String) { nextSequence(name: $name, scope: $scope) }';
const SEQUENCES = 'query($scope: String) { sequences(scope: $scope) { edges { node { name } } } }';
const USERS_PAGE =
  'query($first: Int, $after: String) { users(first: $first, after: $after) { edges { node { id } } } }';
const USER_BY_ID = 'query($id: ID!) { user(id: $id) { id name } }';

/** The creation mutations with their expected failures selected: refusals come back as data. */
const CREATE_USER =
  'mutation($input: CreateUserInput!, $strategy: IdStrategy) { createUser(input: $input, strategy: $strategy) { user { id name } error { code field } } }';
const CREATE_USERS =
  'mutation($inputs: [CreateUserInput!]!, $strategy: IdStrategy) { createUsers(inputs: $inputs, strategy: $strategy) { results { user { id } error { code field } } error { code field } } }';
const createUserWith = (input: object, strategy?: string) => gql(CREATE_USER, { input, strategy });
const nextSequenceOf = (name: string, scope?: string) => gql(NEXT_SEQUENCE, { name, scope });
const allocate = (name: string, count?: number, scope?: string) =>
  gql(ALLOCATE, { name, count, scope });
const createSequenceWith = (input: object) => gql(CREATE_SEQUENCE, { input });
const setSequence = (
  headers: Record<string, string>,
  name = 'userid',
  value: unknown = 1,
  scope?: string,
) => gql(SET_SEQUENCE, { name, value, scope }, headers);

const BAD_INPUT = 'BAD_USER_INPUT';
const VALIDATION = 'GRAPHQL_VALIDATION_FAILED';

/** A refusal: 400 with BAD_USER_INPUT when variables fail coercion, else 200 with the error. */
const refusedInput = (name: string, request: HostileRequest): HostileCase => ({
  name,
  request,
  code: BAD_INPUT,
});
/** Sent to the production instance without a token: the field needs one. */
const unauthenticated = (name: string, request: HostileRequest): HostileCase => ({
  name,
  request,
  code: 'UNAUTHENTICATED',
  production: true,
});
const LONE_HIGH = '\ud800';
const LONE_LOW = '\udfff';
/** `operations` batched operations, each `aliases` aliases of createUsers sharing one variable. */
const aliasedBatches = (operations: number, aliases: number, items: number) =>
  json(
    Array.from({ length: operations }, () => ({
      query: `mutation($inputs: [CreateUserInput!]!) { ${repeat(aliases, (i) => `a${i}: createUsers(inputs: $inputs) { created }`)} }`,
      variables: { inputs: Array.from({ length: items }, (_, i) => ({ name: `n${i}` })) },
    })),
  );
const persisted = (version: number, sha256Hash: string) =>
  json({ query: '{ __typename }', extensions: { persistedQuery: { version, sha256Hash } } });
const forbidden = (name: string, headers: Record<string, string>): HostileCase => ({
  name,
  request: setSequence(headers),
  code: 'FORBIDDEN',
});

const wrongToken = (name: string, headers: Record<string, string>): HostileCase => ({
  name,
  request: setSequence(headers),
  status: 401,
  code: 'UNAUTHENTICATED',
});

const cases: HostileCase[] = [
  // Bodies and transport.
  {
    name: 'a body over the size limit',
    request: gql('{ __typename }', { padding: 'x'.repeat(BODY_LIMIT_BYTES * 2) }),
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'a createUser whose name alone is over the body limit',
    request: createUserWith({ name: 'n'.repeat(BODY_LIMIT_BYTES * 2) }),
    status: 413,
  },
  {
    name: 'malformed JSON',
    request: { ...json(null), body: '{"query": "{ __typename }"' },
    status: 400,
  },
  { name: 'a JSON number as the body', request: { ...json(null), body: '42' }, status: 400 },
  { name: 'an empty JSON object', request: json({}), status: 400, code: 'BAD_REQUEST' },
  {
    name: 'query that is not a string',
    request: json({ query: 42 }),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'variables that are not an object',
    request: json({ query: '{ __typename }', variables: 'x' }),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a batch of 1,000 queries',
    request: json(Array.from({ length: 1000 }, () => ({ query: '{ __typename }' }))),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a batch of 11 createUser mutations (one over the cap) creates nobody',
    request: json(
      Array.from({ length: 11 }, (_, i) => ({
        query: CREATE_USER,
        variables: { input: { name: `batched ${i}` } },
      })),
    ),
    status: 400,
    code: 'BAD_REQUEST',
  },
  { name: 'a syntax error', request: gql('{ users { '), status: 400, code: 'GRAPHQL_PARSE_FAILED' },
  { name: 'an unknown field', request: gql('{ passwords }'), status: 400, code: VALIDATION },
  // Depth, width, aliases, directives, tokens.
  {
    name: 'invitedBy nested 12 deep',
    request: gql(NESTED_INVITERS),
    status: 400,
    code: VALIDATION,
  },
  {
    name: 'a fragment cycle',
    request: gql(
      'query { users { edges { node { ...A } } } } fragment A on User { invitedBy { ...B } } fragment B on User { invitedBy { ...A } }',
    ),
    status: 400,
    code: VALIDATION,
  },
  {
    name: 'an alias bomb of 100 nextSequence',
    request: gql(`{ ${repeat(100, (i) => `a${i}: nextSequence(name: "userid")`)} }`),
    status: 400,
    code: VALIDATION,
  },
  {
    name: 'an alias bomb of 40 createUser mutations creates nobody',
    request: gql(
      `mutation { ${repeat(40, (i) => `u${i}: createUser(input: { name: "alias ${i}" }) { user { id } }`)} }`,
    ),
    status: 400,
    code: VALIDATION,
  },
  {
    name: 'a directive flood',
    request: gql(`{ __typename ${repeat(50, () => '@include(if: true)')} }`),
    status: 400,
  },
  {
    name: 'a token flood of 5,000 repeated fields',
    request: gql(`{ sequences { ${repeat(5000, () => 'name')} } }`),
    status: 400,
  },
  {
    name: 'a wide and deep page: 100 users, each with a chain of inviters',
    request: gql(
      `{ users(first: 100) { edges { node { ${repeat(9, (i) => `i${i}: invitedBy { invitedBy { invitedBy { invitedBy { invitedBy { id name email createdAt } } } } }`)} } } } }`,
    ),
    status: 400,
    code: VALIDATION,
  },
  // Wrong types.
  refusedInput('a number as the name', createUserWith({ name: 42 })),
  refusedInput('an operator object as the name', createUserWith({ name: { $gt: '' } })),
  refusedInput(
    'an unknown $where key in the input',
    createUserWith({ name: 'x', $where: 'sleep(1000)' }),
  ),
  refusedInput('a dotted key in the input', createUserWith({ name: 'x', 'profile.admin': true })),
  refusedInput('a __proto__ key in the input', {
    ...json(null),
    body: `{"query": ${JSON.stringify(CREATE_USER)}, "variables": {"input": {"name": "x", "__proto__": {"admin": true}}}}`,
  }),
  refusedInput('an unknown strategy', createUserWith({ name: 'x' }, 'RANDOM')),
  refusedInput('a missing name', createUserWith({})),
  refusedInput('a page size given as text', gql(USERS_PAGE, { first: 'ten' })),
  refusedInput('a Long given as a fraction', setSequence(bearer(ADMIN_TOKEN), 'userid', 1.5)),
  refusedInput('a Long given as words', setSequence(bearer(ADMIN_TOKEN), 'userid', 'one')),
  refusedInput(
    'a Long literal that is a float',
    gql(
      'mutation { setSequence(name: "userid", value: 2.5) { sequence { value } } }',
      undefined,
      bearer(ADMIN_TOKEN),
    ),
  ),
  // Operator injection through every string argument that is not free text.
  refusedInput(
    'an operator string as the email',
    createUserWith({ name: 'x', email: FAKE_OPERATOR }),
  ),
  refusedInput('$where as the email', createUserWith({ name: 'x', email: '$where' })),
  refusedInput(
    'an operator string as invitedById',
    createUserWith({ name: 'x', invitedById: FAKE_OPERATOR }),
  ),
  refusedInput('__proto__ as invitedById', createUserWith({ name: 'x', invitedById: '__proto__' })),
  refusedInput('a dotted invitedById', createUserWith({ name: 'x', invitedById: '1.5' })),
  refusedInput(
    'operator strings as createUsers inviters and emails, each item refused alone',
    gql(CREATE_USERS, {
      inputs: [
        { name: 'y', invitedById: '$ne' },
        { name: 'z', email: FAKE_OPERATOR },
      ],
    }),
  ),
  refusedInput('an operator string as the users cursor', gql(USERS_PAGE, { after: FAKE_OPERATOR })),
  refusedInput('__proto__ as the users cursor', gql(USERS_PAGE, { after: '__proto__' })),
  refusedInput('an operator string as the sequence name', nextSequenceOf(FAKE_OPERATOR)),
  refusedInput('$where as the sequence name', nextSequenceOf('$where')),
  refusedInput('__proto__ as the sequence name', nextSequenceOf('__proto__')),
  refusedInput('__proto__ as the scope', nextSequenceOf('userid', '__proto__')),
  refusedInput('$gt as the scope', nextSequenceOf('userid', '$gt')),
  refusedInput('$ne as the sequences filter scope', gql(SEQUENCES, { scope: '$ne' })),
  refusedInput('__proto__ as the allocated sequence', allocate('__proto__')),
  refusedInput('a $inc path as the allocated scope', allocate('orders', 1, 'seq.$inc')),
  refusedInput('$where as a new sequence name', createSequenceWith({ name: '$where' })),
  refusedInput(
    '__proto__ as a new sequence scope',
    createSequenceWith({ name: 'orders', scope: '__proto__' }),
  ),
  refusedInput(
    '$where as the sequence set by an admin',
    setSequence(bearer(ADMIN_TOKEN), '$where', 5),
  ),
  refusedInput(
    '$gt as the scope set by an admin',
    setSequence(bearer(ADMIN_TOKEN), 'userid', 5, '$gt'),
  ),
  // Invalid sequence names.
  refusedInput('an empty sequence name', nextSequenceOf('')),
  refusedInput('a sequence name of 65 characters', allocate(`s${'x'.repeat(64)}`)),
  refusedInput('a sequence name starting with a digit', allocate('1orders')),
  refusedInput('a sequence name with a space', allocate('my orders')),
  refusedInput('a sequence name with the scope separator /', allocate('orders/2026')),
  refusedInput('a sequence name with a non-ASCII letter', createSequenceWith({ name: 'séquence' })),
  // Enormous counts and ranges, lengths.
  refusedInput('allocating 10,001 values', allocate('orders', 10_001)),
  refusedInput('allocating 0 values', allocate('orders', 0)),
  refusedInput('allocating -5 values', allocate('orders', -5)),
  refusedInput('allocating 2^31 values (beyond Int)', allocate('orders', 2 ** 31)),
  refusedInput(
    'a sequence starting at 2^53',
    createSequenceWith({ name: 'orders', start: 2 ** 53 }),
  ),
  refusedInput('a sequence with step 0', createSequenceWith({ name: 'orders', step: 0 })),
  refusedInput(
    'a sequence whose max is 2^63',
    createSequenceWith({ name: 'orders', max: '9223372036854775807' }),
  ),
  refusedInput(
    'a sequence whose start is above its max',
    createSequenceWith({ name: 'orders', start: 10, max: 5 }),
  ),
  refusedInput(
    'setSequence to 2^53',
    setSequence(bearer(ADMIN_TOKEN), 'userid', '9007199254740992'),
  ),
  refusedInput(
    'createUsers with 1,001 inputs',
    gql(CREATE_USERS, { inputs: Array.from({ length: 1001 }, (_, i) => ({ name: `bulk ${i}` })) }),
  ),
  refusedInput('a page of 101 users', gql(USERS_PAGE, { first: 101 })),
  refusedInput('a page of 0 users', gql(USERS_PAGE, { first: 0 })),
  refusedInput('a page of -1 users', gql(USERS_PAGE, { first: -1 })),
  {
    name: 'a page of 2^31 users as a literal (beyond Int)',
    request: gql('{ users(first: 2147483648) { edges { node { id } } } }'),
    status: 400,
  },
  refusedInput('a name of 101 characters', createUserWith({ name: 'n'.repeat(101) })),
  refusedInput('a name of only spaces', createUserWith({ name: '    ' })),
  refusedInput('a name with a NUL character', createUserWith({ name: 'a\u0000b' })),
  refusedInput(
    'an email of 300 characters',
    createUserWith({ name: 'x', email: `${'e'.repeat(290)}@example.com` }),
  ),
  refusedInput(
    'an idempotency key of 129 characters',
    createUserWith({ name: 'x', idempotencyKey: 'k'.repeat(129) }),
  ),
  refusedInput('an empty idempotency key', createUserWith({ name: 'x', idempotencyKey: '' })),
  // The admin token.
  forbidden('setSequence without a token', {}),
  // A token presented but not valid is refused whole, in every mode (issue 19).
  wrongToken('setSequence with a wrong token', bearer('not-the-admin-token-at-all')),
  wrongToken(
    'setSequence with the token minus its last character',
    bearer(ADMIN_TOKEN.slice(0, -1)),
  ),
  wrongToken('setSequence with the token plus a character', bearer(`${ADMIN_TOKEN}x`)),
  wrongToken('setSequence with the token in a Basic header', {
    authorization: `Basic ${ADMIN_TOKEN}`,
  }),
  wrongToken('setSequence with an empty bearer', { authorization: 'Bearer ' }),
  // Who may call what (issue 11, findings 1 and 2): production, no token.
  unauthenticated(
    'an anonymous createSequence of userid starting at -3 (finding 1)',
    createSequenceWith({ name: 'userid', start: -3 }),
  ),
  unauthenticated(
    'an anonymous createSequence of userid with max 2 (finding 1)',
    createSequenceWith({ name: 'userid', max: 2 }),
  ),
  unauthenticated(
    'an anonymous allocateSequence of 8,997 values (finding 2)',
    allocate('orders', 8_997),
  ),
  unauthenticated('an anonymous sequences listing (finding 2)', gql(SEQUENCES, {})),
  unauthenticated(
    'an anonymous users page with emails (finding 2)',
    gql(USERS_PAGE, { first: 10 }),
  ),
  unauthenticated('an anonymous nextSequence', nextSequenceOf('orders')),
  unauthenticated('an anonymous createUsers', gql(CREATE_USERS, { inputs: [{ name: 'x' }] })),
  unauthenticated(
    'two anonymous createUser through aliases',
    gql(
      `mutation { ${repeat(2, (i) => `u${i}: createUser(input: { name: "anon ${i}" }) { user { id } }`)} }`,
    ),
  ),
  unauthenticated('an anonymous setSequence', setSequence({})),
  unauthenticated(
    'setSequence with the admin token in upper case',
    setSequence(bearer(ADMIN_TOKEN.toUpperCase())),
  ),
  // Per-request bounds over aliases and batched operations (finding 3).
  refusedInput(
    '5 batched operations x 15 aliases x 1,000 createUsers inputs',
    aliasedBatches(5, 15, 1_000),
  ),
  refusedInput(
    '2 batched operations x 1 alias x 501 createUsers inputs',
    aliasedBatches(2, 1, 501),
  ),
  refusedInput(
    '2 aliases of createUsers sharing 501 inputs, through a fragment',
    gql(
      'mutation($inputs: [CreateUserInput!]!) { ...Twice } fragment Twice on Mutation { a: createUsers(inputs: $inputs) { created } b: createUsers(inputs: $inputs) { created } }',
      { inputs: Array.from({ length: 501 }, (_, i) => ({ name: `f${i}` })) },
    ),
  ),
  refusedInput(
    '11 aliased allocateSequence calls',
    gql(
      `mutation { ${repeat(11, (i) => `a${i}: allocateSequence(name: "orders") { range { first } }`)} }`,
    ),
  ),
  // Lone surrogates in any string argument (finding 6).
  refusedInput(
    'an idempotency key ending in a lone high surrogate (finding 6)',
    createUserWith({ name: 'x', idempotencyKey: `key${LONE_HIGH}` }),
  ),
  refusedInput('a name with a lone low surrogate', createUserWith({ name: `x${LONE_LOW}y` })),
  refusedInput(
    'an email with a lone surrogate',
    createUserWith({ name: 'x', email: `a${LONE_HIGH}@example.com` }),
  ),
  refusedInput(
    'a createUsers item with a lone surrogate',
    gql(CREATE_USERS, { inputs: [{ name: 'ok' }, { name: `bad${LONE_HIGH}` }] }),
  ),
  refusedInput('a sequence name with a lone surrogate', nextSequenceOf(`orders${LONE_HIGH}`)),
  refusedInput(
    'a lone surrogate in an unknown input key',
    createUserWith({ name: 'x', [`k${LONE_HIGH}`]: 1 }),
  ),
  refusedInput(
    'an inline name literal with an escaped lone surrogate',
    gql('mutation { createUser(input: { name: "x\\ud800" }) { user { id } } }'),
  ),
  refusedInput(
    'an inline name literal with a raw lone surrogate',
    gql(`mutation { createUser(input: { name: "x${LONE_HIGH}" }) { user { id } } }`),
  ),
  // Client mistakes are client errors (finding 9).
  {
    name: 'an APQ hash that does not match its query (finding 9)',
    request: persisted(1, 'f'.repeat(64)),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'an APQ version 2 (finding 9)',
    request: persisted(2, 'f'.repeat(64)),
    status: 400,
    code: 'BAD_REQUEST',
  },
  refusedInput(
    'a createUser input with 60 unknown keys: too many variable errors (finding 9)',
    createUserWith(
      Object.fromEntries([['name', 'x'], ...Array.from({ length: 60 }, (_, i) => [`k${i}`, 1])]),
    ),
  ),
  // CSRF-style simple requests: a browser sends these cross-site without a preflight.
  {
    name: 'a mutation posted as text/plain',
    request: {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ query: CREATE_USER, variables: { input: { name: 'csrf' } } }),
    },
    status: 400,
  },
  {
    name: 'a mutation posted as a form',
    request: {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `query=${encodeURIComponent('mutation { createUser(input: { name: "csrf" }) { user { id } } }')}`,
    },
    status: 400,
  },
  {
    name: 'a mutation posted as multipart',
    request: {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x\r\nContent-Disposition: form-data; name="query"\r\n\r\nmutation { createUser(input: { name: "csrf" }) { user { id } } }\r\n--x--\r\n',
    },
    status: 400,
  },
  {
    name: 'a GET mutation without a preflight header',
    request: {
      method: 'GET',
      path: `/graphql?query=${encodeURIComponent('mutation { createUser(input: { name: "csrf" }) { user { id } } }')}`,
    },
    status: 400,
  },
  {
    name: 'a GET mutation with a preflight header',
    request: {
      method: 'GET',
      path: `/graphql?query=${encodeURIComponent('mutation { createUser(input: { name: "csrf" }) { user { id } } }')}`,
      headers: { 'apollo-require-preflight': 'true' },
    },
    status: 405,
  },
  {
    name: 'a GET allocateSequence with an operation-name header',
    request: {
      method: 'GET',
      path: `/graphql?query=${encodeURIComponent('mutation M { allocateSequence(name: "orders") { range { first } } }')}`,
      headers: { 'x-apollo-operation-name': 'M' },
    },
    status: 405,
  },
];

function send(service: TestService, request: HostileRequest): Promise<HttpResult> {
  return sendHttp(`${service.url}${request.path ?? '/graphql'}`, {
    method: request.method ?? 'POST',
    headers: request.headers,
    body: request.body,
  });
}

interface PayloadLike {
  error?: { code: string } | null;
  results?: Array<{ user: unknown; error: { code: string } | null }>;
}

/**
 * The error codes of a response (top-level; a mutation payload's `error`; each `createUsers`
 * item's, where one bad item fails alone) and the top-level fields it nevertheless answered with
 * something: a payload without an error, or a batch with at least one user.
 */
function readRefusal(response: HttpResult): { codes: string[]; granted: string[] } {
  const data = (response.body as GraphQLResultLike | null)?.data ?? {};
  const payloads = Object.entries(data).map(
    ([field, value]) => [field, value as PayloadLike | null] as const,
  );
  const dataCodes = payloads.flatMap(([, payload]) => [
    ...(payload?.error ? [payload.error.code] : []),
    ...(payload?.results ?? []).flatMap((r) => (r.error ? [r.error.code] : [])),
  ]);
  const granted = payloads
    .filter(([, payload]) =>
      payload === null || payload.error
        ? false
        : payload.results === undefined || payload.results.some((r) => r.user !== null),
    )
    .map(([field]) => field);
  return { codes: [...errorCodes(response.body), ...dataCodes], granted };
}

/** Every collection of the database, every document with its BSON types, in one comparable string. */
/**
 * The stored data, for comparison. The `budgets` collection is left out: callers' budgets count
 * attempts, refused ones included, by design (docs/operations.md, "Caller budgets").
 */
async function snapshot(db: Db): Promise<string> {
  const collections = await db.listCollections({}, { nameOnly: true }).toArray();
  const names = collections
    .map((c) => c.name)
    .filter((name) => name !== 'budgets')
    .sort();
  const contents: Record<string, unknown[]> = {};
  for (const name of names) {
    contents[name] = await db
      .collection(name)
      .find({}, { promoteLongs: false, promoteValues: false })
      .sort({ _id: 1 })
      .maxTimeMS(20_000)
      .toArray();
  }
  return EJSON.stringify(contents, { relaxed: false });
}

describe('hostile input: every request refused cleanly, the database untouched', () => {
  const dbName = uniqueDbName();
  let client: MongoClient;
  let db: Db;
  let service: TestService;
  let production: TestService;
  let before: string;

  beforeAll(async () => {
    client = await connectTestClient();
    db = client.db(dbName);
    const env = { ADMIN_TOKEN, BODY_LIMIT: `${BODY_LIMIT_BYTES}b` };
    [service, production] = await Promise.all([
      startTestService({ dbName, env }),
      startTestService({ dbName, env: { ...env, NODE_ENV: 'production' } }),
    ]);
    // Something to find: an injected operator that worked would return these users.
    const inviter = await createUser(service.url, { name: 'inviter' }, 'COUNTER');
    const inviterId = inviter.items[0].user?.id;
    expect(inviterId).toBeDefined();
    await postGraphQL(service.url, CREATE_USER, {
      input: { name: 'invitee', invitedById: inviterId },
    });
    await postGraphQL(service.url, CREATE_SEQUENCE, { input: { name: 'orders' } });
    before = await snapshot(db);
  });

  afterAll(async () => {
    await Promise.all([service?.stop(), production?.stop()]);
    await client?.close();
  });

  test('the table holds at least 50 requests', () => {
    expect(cases.length).toBeGreaterThanOrEqual(50);
  });

  test.each(cases.map((c) => [c.name, c] as const))('%s is refused', async (_name, hostile) => {
    const response = await send(hostile.production ? production : service, hostile.request);
    const { codes, granted } = readRefusal(response);
    const seen = { status: response.status, codes, granted, body: JSON.stringify(response.body) };
    // Refused: never a 5xx, never an internal error, nothing granted, and a 4xx or an error code.
    expect(seen).toMatchObject({ granted: [] });
    expect(seen.status).toBeLessThan(500);
    expect(seen.codes).not.toContain('INTERNAL_SERVER_ERROR');
    expect(seen.status >= 400 || seen.codes.length > 0).toBe(true);
    if (hostile.status !== undefined) expect(seen).toMatchObject({ status: hostile.status });
    if (hostile.code !== undefined) {
      expect(seen).toMatchObject({ codes: expect.arrayContaining([hostile.code]) });
    }
  });

  test('operator strings in ids and cursors never select a stored user', async () => {
    for (const id of [FAKE_OPERATOR, '$where', '__proto__', '{"$ne": null}']) {
      const response = await postGraphQL(service.url, USER_BY_ID, { id });
      expect(response.status).toBeLessThan(500);
      const data = (response.body as GraphQLResultLike | null)?.data;
      expect(data?.user ?? null).toBeNull();
    }
  });

  test('the database is unchanged after the whole table', async () => {
    expect(await snapshot(db)).toBe(before);
  });

  test('operator-looking names and idempotency keys are stored as literal text', async () => {
    const texts = [FAKE_OPERATOR, '$where', 'profile.admin', '__proto__', 'constructor', '$set'];
    for (const [i, text] of texts.entries()) {
      const created = await createUser(
        service.url,
        { name: text, idempotencyKey: `${text}#${i}` },
        'COUNTER',
      );
      const user = created.items[0].user;
      expect({ text, user }).toMatchObject({ user: { name: text } });
      const byKey = await db
        .collection('users')
        .find({ idempotencyKey: sentKeyFilter(`${text}#${i}`) })
        .maxTimeMS(20_000)
        .toArray();
      expect(byKey.map((doc) => doc.name)).toEqual([text]);
    }
  });

  describe('in production', () => {
    test('introspection is refused', async () => {
      const response = await postGraphQL(production.url, '{ __schema { types { name } } }');
      expect(response.status).toBe(400);
      expect(errorCodes(response.body)).toContain(VALIDATION);
    });

    test('no landing page is served', async () => {
      const response = await sendHttp(`${production.url}/graphql`, {
        headers: { accept: 'text/html' },
      });
      expect(typeof response.body === 'string' ? response.body : '').not.toMatch(/<html/i);
      const root = await sendHttp(`${production.url}/`, { headers: { accept: 'text/html' } });
      expect(root.status).toBe(404);
    });

    test('errors carry no stack trace and no field suggestion', async () => {
      for (const request of [
        gql('{ userz(id: "1") { id } }'),
        createUserWith({ name: '' }),
        setSequence({}),
      ]) {
        const response = await send(production, request);
        const text = JSON.stringify(response.body);
        expect(text).not.toMatch(/stacktrace/i);
        expect(text).not.toMatch(/did you mean/i);
        expect(readRefusal(response).codes.length).toBeGreaterThan(0);
      }
    });
  });
});
