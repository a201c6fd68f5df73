/**
 * src/graphql/subscription-rules.ts alone, without a transport: the service's schema, role table,
 * authenticator and graphql-armor rules, no connection. Who may connect; what a subscription
 * request may be (only a valid subscription, parsed within the token limit); that `start` counts
 * against the bounds and `end`/`disconnect` give back; that a connection's context aborts when it
 * closes; that results' errors are formatted as over HTTP.
 */
import { GraphQLError } from 'graphql';
import pino from 'pino';
import { createAuthenticator } from '../../src/auth/index';
import { BadUserInputError } from '../../src/errors';
import type { ServiceComponents } from '../../src/components';
import type { GraphQLContext } from '../../src/graphql/context';
import { createSchema, documentProtection } from '../../src/graphql/server';
import type { SubscriptionBounds } from '../../src/graphql/subscription-holdings';
import {
  checkSubscriptionDocument,
  leastSubscriptionRole,
  type SubscriberConnection,
  SubscriptionRules,
} from '../../src/graphql/subscription-rules';
import { DOCUMENT, SUBSCRIPTIONS } from '../../src/limits';

const ADMIN = 'rules-admin-token-0123456789abcdefghij';
const CLIENT = 'rules-client-token-0123456789abcdefgh';
const schema = createSchema();
const armor = documentProtection({ NODE_ENV: 'test' });
const WATCH = 'subscription W { sequenceChanged(name: "w") { sequence { value } } }';

function rules(
  bounds: SubscriptionBounds = SUBSCRIPTIONS,
  NODE_ENV: 'test' | 'production' = 'test',
) {
  return new SubscriptionRules({
    schema,
    authenticate: createAuthenticator({
      NODE_ENV,
      ADMIN_TOKEN: ADMIN,
      CLIENT_TOKENS: [{ client: 'acme', token: CLIENT }],
    }),
    // The context only hands the components to resolvers, nothing here runs one; every budget
    // grants (test/budgets holds them).
    components: { budgets: { charge: async () => undefined } } as unknown as ServiceComponents,
    validationRules: armor.validationRules,
    logger: pino({ level: 'silent' }),
    bounds,
  });
}

const ADDRESS = '127.0.0.1';

async function connected(of: SubscriptionRules, token = CLIENT): Promise<SubscriberConnection> {
  const connection = of.connect();
  const who = of.whoIs(`Bearer ${token}`, ADDRESS);
  if (connection === null || who === 'forbidden') throw new Error('no');
  if ((await of.chargeConnection(connection, who)) !== null) throw new Error('no');
  return connection;
}

const messages = (answer: unknown) =>
  (answer as GraphQLError[]).map((error) => [error.message, error.extensions?.code]);

test('who: a token that proves no one, or a caller below every subscription field, is refused', async () => {
  expect(leastSubscriptionRole()).toBe('client');
  const production = rules(SUBSCRIPTIONS, 'production');
  const connection = production.connect()!;
  const wrong = 'Bearer wrong-token-0123456789abcdefghijk';
  expect(production.whoIs(wrong, ADDRESS)).toBe('forbidden');
  expect(production.whoIs(undefined, ADDRESS)).toBe('forbidden'); // anonymous
  const notAString = { authorization: CLIENT };
  expect(production.whoIs(notAString, ADDRESS)).toBe('forbidden');
  const who = production.whoIs(`Bearer ${CLIENT}`, ADDRESS);
  if (who === 'forbidden') throw new Error('the client token was refused');
  expect(connection.caller).toBeUndefined();
  expect(await production.chargeConnection(connection, who)).toBeNull();
  expect(connection.caller).toEqual({ role: 'client', client: 'acme' });
});

test.each([
  ['a query', '{ viewer { role } }', /^Only subscriptions go over SSE; send queries and mutations/],
  ['a mutation', 'mutation { deleteUser(id: "1") { deletedUserId } }', /^Only subscriptions/],
  ['a syntax error', 'subscription {', /^Syntax Error/],
  ['an unknown field', 'subscription { nothing }', /Cannot query field "nothing"/],
  [
    'too many tokens',
    `subscription { ${'sequenceChanged(name: "x") { cursor } '.repeat(DOCUMENT.tokens / 8)} }`,
    /tokens/,
  ],
  [
    'too deep',
    `subscription { userCreated { user { ${'invitedBy { '.repeat(DOCUMENT.depth)} id ${'} '.repeat(DOCUMENT.depth)} } } }`,
    /depth/i,
  ],
])('what: %s is refused', (_what, query, refusal) => {
  const answer = checkSubscriptionDocument(schema, armor.validationRules, { query }, 'SSE');
  expect('kind' in answer).toBe(false);
  expect((answer as GraphQLError[])[0].message).toMatch(refusal);
});

test('parse and validation refusals carry the codes Apollo Server gives them over HTTP', () => {
  const codeOf = (query: string) =>
    (
      checkSubscriptionDocument(schema, armor.validationRules, { query }, 'SSE') as GraphQLError[]
    )[0].extensions.code;
  expect(codeOf('subscription {')).toBe('GRAPHQL_PARSE_FAILED');
  expect(codeOf('subscription { nothing }')).toBe('GRAPHQL_VALIDATION_FAILED');
});

test('start counts against the bounds; end and disconnect give back; the context ends with its connection', async () => {
  const narrow = rules({ ...SUBSCRIPTIONS, perConnection: 1, perClient: 2, connections: 3 });
  const first = await connected(narrow);
  const started = await narrow.start(first, '1', { query: WATCH }, 'SSE');
  expect('document' in started).toBe(true);
  expect(messages(await narrow.start(first, '2', { query: WATCH }, 'SSE'))).toEqual([
    ['At most 1 subscriptions per connection', 'TOO_MANY_SUBSCRIPTIONS'],
  ]);
  const second = await connected(narrow);
  expect('document' in (await narrow.start(second, '1', { query: WATCH }, 'SSE'))).toBe(true);
  expect(
    messages(await narrow.start(await connected(narrow), '1', { query: WATCH }, 'SSE')),
  ).toEqual([
    ['At most 2 subscriptions per client (over all its connections)', 'TOO_MANY_SUBSCRIPTIONS'],
  ]);
  expect(narrow.connect()).toBeNull(); // three connections are the bound
  narrow.end(first, '1');
  expect('document' in (await narrow.start(first, '3', { query: WATCH }, 'SSE'))).toBe(true);

  const signal = (started as { contextValue: GraphQLContext }).contextValue.budget.signal;
  expect(signal.aborted).toBe(false);
  narrow.disconnect(first);
  expect(signal.aborted).toBe(true);
  expect(messages(await narrow.start(first, '4', { query: WATCH }, 'SSE'))).toEqual([
    ['The connection is closed', 'BAD_USER_INPUT'],
  ]);
  expect(narrow.connect()).not.toBeNull();
});

test('a connection not yet identified starts nothing', async () => {
  const of = rules();
  expect(messages(await of.start(of.connect()!, '1', { query: WATCH }, 'WebSocket'))).toEqual([
    ['The connection was not initialised', 'BAD_USER_INPUT'],
  ]);
});

test('results keep their data; their errors are formatted as over HTTP', () => {
  const of = rules();
  expect(of.formatResult({ data: { x: 1 } })).toBeUndefined();
  const formatted = of.formatResult({
    data: null,
    errors: [
      new GraphQLError('wrapped', {
        originalError: new BadUserInputError('after must be a cursor', { field: 'after' }),
      }),
    ],
  });
  expect(formatted?.errors).toEqual([
    {
      message: 'after must be a cursor',
      extensions: { code: 'BAD_USER_INPUT', field: 'after' },
    },
  ]);
});
