/**
 * The limits in front of GraphQL, through a real HTTP client: body size, batch size, malformed JSON,
 * CSRF prevention, CORS, graphql-armor's query limits, and what production hides.
 */
import { startTestService, TEST_CLIENT, type TestService } from '../support/service';

const ALLOWED_ORIGIN = 'http://allowed.example:8080';

function post(service: TestService, body: string, headers: Record<string, string> = {}) {
  return fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(15_000),
  });
}

const userCount = (service: TestService) =>
  service.client.db(service.dbName).collection('users').countDocuments();

let service: TestService;
let production: TestService;

beforeAll(async () => {
  const env = { BODY_LIMIT: '64kb', CORS_ORIGINS: ALLOWED_ORIGIN };
  [service, production] = await Promise.all([
    startTestService({ env }),
    startTestService({ env: { ...env, NODE_ENV: 'production' } }),
  ]);
});

afterAll(async () => {
  await Promise.all([service.stop(), production.stop()]);
});

test('a body over BODY_LIMIT is refused with 413, not 500', async () => {
  const name = 'x'.repeat(100_000);
  const response = await post(
    service,
    JSON.stringify({
      query: `mutation { createUser(input: { name: "${name}" }) { user { id } } }`,
    }),
  );
  expect(response.status).toBe(413);
  expect(await response.json()).toMatchObject({
    errors: [{ extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
  });
  expect(await userCount(service)).toBe(0);
});

test('malformed JSON is a 400', async () => {
  const response = await post(service, '{"query": ');
  expect(response.status).toBe(400);
  expect(await response.json()).toMatchObject({
    errors: [{ extensions: { code: 'BAD_REQUEST' } }],
  });
});

describe('a body the service cannot decode is a 415 that says what to send instead', () => {
  const create = JSON.stringify({
    query: 'mutation { createUser(input: { name: "Undecoded" }) { user { id } } }',
  });
  test.each([
    [
      'a charset other than UTF-8',
      { 'content-type': 'application/json; charset=iso-8859-1' },
      'The body\'s charset "iso-8859-1" is not supported: send JSON in UTF-8',
    ],
    [
      'a content encoding the service does not decode',
      { 'content-encoding': 'zstd' },
      'The body\'s Content-Encoding "zstd" is not supported: send it uncompressed, or gzip, deflate or br',
    ],
    [
      'a charset name longer than any real one, cut in the answer',
      { 'content-type': `application/json; charset=${'k'.repeat(500)}` },
      `The body's charset "${'k'.repeat(40)}…" is not supported: send JSON in UTF-8`,
    ],
  ])('%s', async (_what, headers, message) => {
    const before = await userCount(service);
    const response = await post(service, create, headers);
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      errors: [{ message, extensions: { code: 'BAD_REQUEST', requestId: expect.any(String) } }],
    });
    expect(await userCount(service)).toBe(before);
  });
});

test('a batch of up to 10 operations runs; more is refused with BAD_REQUEST before any runs', async () => {
  const op = (i: number) => ({
    query: `mutation { createUser(input: { name: "Batch ${i}" }) { user { id } } }`,
  });
  const ten = await post(service, JSON.stringify(Array.from({ length: 10 }, (_, i) => op(i))));
  expect(ten.status).toBe(200);
  const answers = (await ten.json()) as Array<{ data: { createUser: { user: { id: string } } } }>;
  expect(new Set(answers.map((a) => a.data.createUser.user.id)).size).toBe(10);

  const before = await userCount(service);
  const eleven = await post(
    service,
    JSON.stringify(Array.from({ length: 11 }, (_, i) => op(100 + i))),
  );
  expect(eleven.status).toBe(400);
  expect(await eleven.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
  expect(await userCount(service)).toBe(before);
});

test('CSRF prevention stops a simple cross-site form post before it runs', async () => {
  const before = await userCount(service);
  const response = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', origin: 'http://evil.example' },
    body: JSON.stringify({
      query: 'mutation { createUser(input: { name: "Forged" }) { user { id } } }',
    }),
  });
  expect(response.status).toBe(400);
  expect(await response.text()).toMatch(/Cross-Site Request Forgery/);
  expect(await userCount(service)).toBe(before);
});

test('a GET query without a preflight header is refused as CSRF', async () => {
  const response = await fetch(
    `${service.url}/graphql?query=${encodeURIComponent('{ strategyStats { strategy } }')}`,
  );
  expect(response.status).toBe(400);
});

describe('CORS', () => {
  const preflight = (origin: string) =>
    fetch(`${service.url}/graphql`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });

  test('lets an origin from CORS_ORIGINS in', async () => {
    const response = await preflight(ALLOWED_ORIGIN);
    expect(response.status).toBeLessThan(300);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    const actual = await post(
      service,
      JSON.stringify({ query: '{ strategyStats { strategy } }' }),
      { origin: ALLOWED_ORIGIN },
    );
    expect(actual.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
  });

  test('gives any other origin no CORS grant', async () => {
    const response = await preflight('http://evil.example');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('answers a request without Origin as cors does: no grant, Vary: Origin', async () => {
    for (const target of [service, production]) {
      const response = await post(
        target,
        JSON.stringify({
          query: 'mutation { createUser(input: { name: "Ann" }) { user { id } } }',
        }),
        target === production ? { authorization: `Bearer ${TEST_CLIENT.token}` } : {},
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('vary')).toBe('Origin');
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});

describe('graphql-armor limits', () => {
  test('a query deeper than the limit is refused before it runs', async () => {
    const deep = `{ users(first: 1) { edges { node { invitedBy { invitedBy { invitedBy { invitedBy { invitedBy { invitedBy { invitedBy { id } } } } } } } } } } }`;
    const response = await service.graphql(deep);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(response.body.errors?.[0]?.message).toMatch(/depth/i);
  });

  test('the cost limit lets a page with two levels of inviters through and refuses three', async () => {
    const fields = 'id name email createdWith createdAt';
    const page = (levels: number) => {
      let node = fields;
      for (let level = 0; level < levels; level += 1) node = `${fields} invitedBy { ${node} }`;
      return `{ users(first: 100) { edges { cursor node { ${node} } } pageInfo { hasNextPage endCursor } } }`;
    };
    const two = await service.graphql(page(2));
    expect(two.status).toBe(200);
    expect(two.body.errors).toBeUndefined();
    const three = await service.graphql(page(3));
    expect(three.status).toBe(400);
    expect(three.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(three.body.errors?.[0]?.message).toMatch(/cost/i);
  });

  test('an alias bomb is refused before it runs', async () => {
    const aliases = Array.from(
      { length: 50 },
      (_, i) => `a${i}: createUser(input: { name: "Alias ${i}" }) { user { id } }`,
    );
    const before = await userCount(service);
    const response = await service.graphql(`mutation { ${aliases.join(' ')} }`);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.message).toMatch(/alias/i);
    expect(await userCount(service)).toBe(before);
  });

  test('a query with too many tokens is refused', async () => {
    const fields = Array.from({ length: 2_500 }, () => '__typename').join(' ');
    const response = await service.graphql(`{ ${fields} }`);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(response.body.errors?.[0]?.message).toMatch(/token/i);
  });

  test('too many directives are refused', async () => {
    const directives = Array.from({ length: 30 }, () => '@include(if: true)').join(' ');
    const response = await service.graphql(`{ __typename ${directives} }`);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.message).toMatch(/directive/i);
  });
});

describe('production', () => {
  test('introspection is off', async () => {
    const [dev, prod] = await Promise.all([
      service.graphql('{ __schema { queryType { name } } }'),
      production.graphql('{ __schema { queryType { name } } }'),
    ]);
    expect(dev.body.data.__schema.queryType.name).toBe('Query');
    expect(prod.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  test('errors carry no stack trace', async () => {
    const bad = `{ users(first: 0) { totalCount } }`;
    const client = { authorization: `Bearer ${TEST_CLIENT.token}` };
    const [dev, prod] = await Promise.all([
      service.graphql(bad, {}, client),
      production.graphql(bad, {}, client),
    ]);
    expect(dev.body.errors?.[0]?.extensions?.stacktrace).toEqual(expect.any(Array));
    expect(prod.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'first',
    });
    expect(prod.body.errors?.[0]?.extensions).not.toHaveProperty('stacktrace');
  });

  test('the landing page is served outside production only', async () => {
    const page = (s: TestService, path: string) =>
      fetch(`${s.url}${path}`, { headers: { accept: 'text/html' }, redirect: 'follow' });
    // GET / opens the Sandbox, or the local explorer when Apollo's CDN cannot be reached.
    const door = await (await page(service, '/')).text();
    expect(door).toMatch(/href="\/graphql"[\s\S]*href="\/explorer"/);
    const dev = await page(service, '/graphql');
    expect(dev.status).toBe(200);
    const html = await dev.text();
    expect(html).toMatch(/embeddable-sandbox|EmbeddedSandbox/);
    expect(html).toMatch(/createUser/);

    expect((await page(production, '/')).status).toBe(404);
    const prodGraphql = await page(production, '/graphql');
    expect(await prodGraphql.text()).not.toMatch(/sandbox/i);
  });
});
