/**
 * The GraphQL-over-HTTP spec as graphql-http's own audit suite checks it, against the real server:
 * no audit fails or warns (the three notices left are GETs, which CSRF prevention refuses without a
 * preflight header, by design). And the status rule behind it: a document that fails to parse,
 * to validate, or whose variables cannot be coerced is 200 for a client that accepts only
 * `application/json`, 400 for one that accepts `application/graphql-response+json` or sends no
 * `Accept`.
 */
import { auditServer } from 'graphql-http';
import { startTestService, type TestService } from '../support/service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});

afterAll(async () => {
  await service.stop();
});

test('graphql-http audits: no failure and no warning', async () => {
  const results = await auditServer({ url: `${service.url}/graphql` });
  const problems = results
    .filter((result) => result.status === 'warn' || result.status === 'error')
    .map((result) => `${result.status} ${result.id} ${result.name}`);
  expect(problems).toEqual([]);
  expect(results.filter((result) => result.status === 'ok').length).toBeGreaterThan(50);
});

describe.each([
  ['a parse failure', { query: '{ user(' }],
  ['a validation failure', { query: '{ notAField }' }],
  ['a variable coercion failure', { query: 'query ($id: ID!) { user(id: $id) { id } }' }],
])('%s', (_name, body) => {
  test.each([
    ['application/json', 200, 'application/json'],
    ['application/graphql-response+json', 400, 'application/graphql-response+json'],
    [
      'application/graphql-response+json, application/json;q=0.9',
      400,
      'application/graphql-response+json',
    ],
    [undefined, 400, 'application/json'],
  ])('Accept: %s answers %i', async (accept, status, type) => {
    const response = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(type);
    const answer = await response.json();
    expect(answer.data).toBeUndefined();
    expect(answer.errors.length).toBeGreaterThan(0);
  });
});
