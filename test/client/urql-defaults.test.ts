/**
 * urql with its defaults against the real server, with the shipped pieces of client/urql.ts:
 * - queries go as `GET` (urql's default, `preferGetMethod: 'within-url-limit'`) and are answered
 *   when `preflightExchange` adds the header CSRF prevention accepts; without it they are refused;
 * - `node(id:)` with inline fragments on its types reads from the cache with no "Heuristic
 *   Fragment Matching" warning, as `graphcacheOptions` carries the schema's possible types
 *   (generated from schema.graphql); without them graphcache warns.
 */
import { Client, type Exchange, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { parse } from 'graphql';
import { graphcacheOptions, preflightExchange } from '../../client/urql';
import { ADMIN_HEADERS, startTestService, type TestService } from '../support/service';

let service: TestService;
let userId: string;

beforeAll(async () => {
  service = await startTestService();
  const created = await service.graphql(
    'mutation { createUser(input: { name: "Ada" }) { user { id } } }',
    {},
    ADMIN_HEADERS,
  );
  userId = created.body.data.createUser.user.id;
});
afterAll(() => service?.stop());

/** A urql client with its default options; the HTTP methods it sent are recorded. */
function defaults(exchanges: Exchange[], methods: string[] = []): Client {
  return new Client({
    url: `${service.url}/graphql`,
    exchanges,
    fetchOptions: { headers: ADMIN_HEADERS },
    fetch: (input, init) => {
      methods.push(init?.method ?? 'GET');
      return fetch(input, init);
    },
  });
}

const USER = parse('query User($id: ID!) { user(id: $id) { id name } }');

test('queries go as GET and are answered with preflightExchange; refused without it', async () => {
  const methods: string[] = [];
  const shipped = defaults(
    [cacheExchange(graphcacheOptions), preflightExchange, fetchExchange],
    methods,
  );
  const answered = await shipped.query(USER, { id: userId }).toPromise();
  expect(answered.error).toBeUndefined();
  expect(answered.data.user.name).toBe('Ada');
  expect(methods).toEqual(['GET']);

  const bare = defaults([cacheExchange(graphcacheOptions), fetchExchange]);
  const refused = await bare.query(USER, { id: userId }).toPromise();
  expect(refused.error?.message).toMatch(/Cross-Site Request Forgery/);
});

test('node(id:) with inline fragments: no Heuristic Fragment Matching warning', async () => {
  const NODE = parse(`query Node($id: ID!) {
    node(id: $id) { id ... on User { name } ... on Sequence { value } }
  }`);
  const warnings = async (options: typeof graphcacheOptions) => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const client = defaults([cacheExchange(options), preflightExchange, fetchExchange]);
      await client.query(USER, { id: userId }).toPromise();
      // Read from the cache: the fragments are matched against the cached User.
      const read = await client.query(NODE, { id: userId }).toPromise();
      expect(read.data.node).toMatchObject({ id: userId, name: 'Ada' });
      return warn.mock.calls
        .map((call) => String(call[0]))
        .filter((text) => /Heuristic/.test(text));
    } finally {
      warn.mockRestore();
    }
  };
  expect(await warnings(graphcacheOptions)).toEqual([]);
  const { possibleTypes: _dropped, ...withoutTypes } = graphcacheOptions;
  expect((await warnings(withoutTypes)).length).toBeGreaterThan(0);
});
