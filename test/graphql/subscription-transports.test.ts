/**
 * One table of the subscription rules, run against both transports through the real HTTP server
 * and the shipped client setups (client/transports.ts, urql's `subscriptionsExchange`): graphql-ws
 * over a WebSocket and GraphQL over Server-Sent Events. Each row is a rule of
 * src/graphql/subscription-rules.ts; where a transport refuses at the connection, its own signal
 * is expected (a WebSocket close code, an HTTP status), otherwise the same GraphQL error.
 * The bounds are narrowed for the test (the service's own are in src/limits.ts `SUBSCRIPTIONS`).
 */
import { request as httpRequest } from 'node:http';
import { Client as UrqlClient } from '@urql/core';
import WebSocket from 'ws';
import {
  SubscriptionConnectionError,
  sseClient,
  subscriptionsExchange,
  wsClient,
} from '../../client/transports';
import { MAX_CURSOR_LENGTH, SUBSCRIPTIONS } from '../../src/limits';
import { ADMIN_HEADERS, startTestService, TEST_CLIENT, type TestService } from '../support/service';

const WATCH = `subscription W($name: String!) { sequenceChanged(name: $name) { sequence { value } } }`;
/** A hang fails the test instead of stalling it. */
const WAIT_MS = 20_000;

type Transport = 'WebSocket' | 'SSE';
type Outcome =
  { data: unknown } | { code: string | number | undefined; message: string; retryable?: unknown };

const disposers: Array<() => void> = [];
afterAll(() => disposers.forEach((dispose) => dispose()));

/** A connection of its own on `transport` (the shipped setup), and a urql client over it. */
function client(via: TestService, transport: Transport, token = TEST_CLIENT.token) {
  const endpoint = { url: `${via.url}/graphql`, token };
  const subscriptions =
    transport === 'SSE'
      ? sseClient(endpoint, { retryAttempts: 0 })
      : wsClient(endpoint, { webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
  disposers.push(() => void subscriptions.dispose());
  return Object.assign(
    new UrqlClient({ url: endpoint.url, exchanges: [subscriptionsExchange(subscriptions)] }),
    { transport: subscriptions },
  );
}

interface Attempt {
  /** The first result: an event's data, or the refusal (a GraphQL error or a connection's). */
  first: Promise<Outcome>;
  stop(): void;
}

function attempt(
  urql: UrqlClient,
  query = WATCH,
  variables: Record<string, unknown> = { name: 'watched' },
): Attempt {
  let stop = () => {};
  const first = new Promise<Outcome>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('nothing within the wait')), WAIT_MS);
    ({ unsubscribe: stop } = urql.subscription(query, variables).subscribe((result) => {
      clearTimeout(timer);
      if (result.error === undefined) return resolve({ data: result.data });
      const [graphql] = result.error.graphQLErrors;
      const network = result.error.networkError;
      resolve(
        graphql !== undefined
          ? {
              code: graphql.extensions?.code as string,
              message: graphql.message,
              retryable: graphql.extensions?.retryable,
            }
          : {
              code: network instanceof SubscriptionConnectionError ? network.code : undefined,
              message: network?.message ?? result.error.message,
            },
      );
    }));
  });
  return { first, stop: () => stop() };
}

/** Tries `until` up to 100 times 200 ms apart (room given back is seen by the server a bit later). */
async function eventually(until: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i += 1) {
    if (await until()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

const live = (outcome: Outcome) => 'data' in outcome;

/** Whether a new subscription on a new connection goes live (it is then stopped). */
async function acceptedOn(via: TestService, transport: Transport): Promise<boolean> {
  const again = attempt(client(via, transport));
  const outcome = await again.first;
  if (live(outcome)) again.stop();
  return live(outcome);
}

let narrow: TestService;
let crowded: TestService;
/** One connection in all, and a short keep-alive: a stalled peer holds the only place. */
let stalled: TestService;
/** Two connections per caller, over both transports. */
let perCaller: TestService;

beforeAll(async () => {
  [narrow, crowded, stalled, perCaller] = await Promise.all([
    startTestService({ subscriptionBounds: { ...SUBSCRIPTIONS, perClient: 2 } }),
    startTestService({ subscriptionBounds: { ...SUBSCRIPTIONS, connections: 2 } }),
    startTestService({
      subscriptionBounds: { ...SUBSCRIPTIONS, connections: 1, keepAliveMs: 1_000 },
    }),
    startTestService({ subscriptionBounds: { ...SUBSCRIPTIONS, connectionsPerCaller: 2 } }),
  ]);
  for (const via of [narrow, crowded, stalled, perCaller]) {
    const defined = await via.graphql(
      'mutation { createSequence(input: { name: "watched" }) { error { code } } }',
      {},
      { authorization: `Bearer ${TEST_CLIENT.token}` },
    );
    expect(defined.body.data.createSequence.error).toBeNull();
  }
});

afterAll(async () => {
  await Promise.all([narrow?.stop(), crowded?.stop(), stalled?.stop(), perCaller?.stop()]);
});

/** Each event several kilobytes (15 aliases of a user with a 100-character name). */
const HEAVY = `subscription { userCreated { ${Array.from(
  { length: 15 },
  (_, i) => `u${i}: user { id name createdWith createdAt }`,
).join(' ')} } }`;

/**
 * A peer on `transport` that subscribes to `HEAVY`, then stops reading: resolves once its
 * connection holds its place (the WebSocket is connected, the SSE response has begun), rejects
 * when it is refused (the place of an earlier connection is not given back yet).
 */
function stalledPeer(via: TestService, transport: Transport): Promise<() => void> {
  if (transport === 'WebSocket') {
    return new Promise((resolve, reject) => {
      const peer = wsClient(
        { url: `${via.url}/graphql`, token: TEST_CLIENT.token },
        {
          webSocketImpl: WebSocket,
          retryAttempts: 0,
          on: {
            connected: (socket) => {
              (socket as WebSocket).pause();
              resolve(() => void peer.dispose());
            },
            closed: () => reject(new Error('refused')),
          },
        },
      );
      peer.subscribe({ query: HEAVY }, { next: () => {}, error: () => {}, complete: () => {} });
    });
  }
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: HEAVY });
    const req = httpRequest(`${via.url}/graphql/stream`, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        authorization: `Bearer ${TEST_CLIENT.token}`,
      },
    });
    req.once('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`refused: ${res.statusCode}`));
      }
      // Read nothing: what the service sends piles up in the sockets' buffers, then in its own.
      res.pause();
      // The service ends it: a reset is the point, not a failure.
      res.on('error', () => {});
      req.on('error', () => {});
      resolve(() => req.destroy());
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** 1,000 users with 100-character names: 1,000 `userCreated` events. */
async function createBatch(via: TestService): Promise<void> {
  const created = await via.graphql(
    'mutation M($inputs: [CreateUserInput!]!) { createUsers(inputs: $inputs) { created } }',
    { inputs: Array.from({ length: 1_000 }, (_, i) => ({ name: `${i} `.padEnd(100, 'x') })) },
    ADMIN_HEADERS,
  );
  expect(created.body.data.createUsers.created).toBe(1_000);
}

const deep = `subscription { userCreated { user { ${'invitedBy { '.repeat(12)} id ${'} '.repeat(12)} } } }`;
const huge = `subscription { sequenceChanged(name: "${'x'.repeat(SUBSCRIPTIONS.messageBytes)}") { cursor } }`;

/** Rules that answer one attempt: [rule, query, variables, expected per transport]. */
const REFUSALS: Array<[string, string, Record<string, unknown>, Record<Transport, object>]> = [
  [
    'document depth (graphql-armor, as over HTTP)',
    deep,
    {},
    {
      WebSocket: { code: 'GRAPHQL_VALIDATION_FAILED', message: expect.stringMatching(/depth/i) },
      SSE: { code: 'GRAPHQL_VALIDATION_FAILED', message: expect.stringMatching(/depth/i) },
    },
  ],
  [
    'message size',
    huge,
    {},
    {
      WebSocket: { code: 1009 }, // ws closes a message over maxPayload: "Message Too Big"
      SSE: { code: 'PAYLOAD_TOO_LARGE' },
    },
  ],
  [
    'resume cursor: malformed',
    'subscription C($after: String) { userCreated(after: $after) { cursor } }',
    { after: 'not a cursor!' },
    {
      WebSocket: {
        code: 'BAD_USER_INPUT',
        message: expect.stringMatching(/after must be a cursor/),
      },
      SSE: { code: 'BAD_USER_INPUT', message: expect.stringMatching(/after must be a cursor/) },
    },
  ],
  [
    'resume cursor: too long',
    'subscription C($after: String) { userCreated(after: $after) { cursor } }',
    { after: 'a'.repeat(MAX_CURSOR_LENGTH + 1) },
    {
      WebSocket: {
        code: 'BAD_USER_INPUT',
        message: expect.stringMatching(/after must be a cursor/),
      },
      SSE: { code: 'BAD_USER_INPUT', message: expect.stringMatching(/after must be a cursor/) },
    },
  ],
];

describe.each(['WebSocket', 'SSE'] as const)('%s', (transport) => {
  // urql refuses to send a query as a subscription: this one goes through the transport itself.
  test('only subscriptions', async () => {
    const { transport: raw } = client(narrow, transport);
    const errors = await new Promise<unknown>((resolve) => {
      raw.subscribe(
        { query: '{ viewer { role } }' },
        {
          next: (result) => resolve(result.errors),
          error: (failure: unknown) => resolve(failure),
          complete: () => {},
        },
      );
    });
    expect(errors).toEqual([
      {
        message: `Only subscriptions go over ${transport}; send queries and mutations to POST /graphql`,
        extensions: { code: 'BAD_USER_INPUT', requestId: expect.any(String) },
      },
    ]);
  });

  test.each(REFUSALS)('%s', async (_rule, query, variables, expected) => {
    const outcome = await attempt(client(narrow, transport), query, variables).first;
    expect(outcome).toMatchObject(expected[transport]);
  });

  test('a token that proves no one is refused with a code and a message', async () => {
    const outcome = await attempt(
      client(narrow, transport, 'no-such-token-0123456789abcdefghijklmn'),
    ).first;
    expect(outcome).toMatchObject(
      transport === 'WebSocket'
        ? { code: 4403, message: 'The subscription connection was closed with 4403: Forbidden' }
        : { code: 'UNAUTHENTICATED', message: expect.stringMatching(/no valid token/) },
    );
  });

  test('per client: the one past the bound is TOO_MANY_SUBSCRIPTIONS, and room comes back', async () => {
    // One connection each, so only the per-client bound (2) can bite.
    const held = [attempt(client(narrow, transport)), attempt(client(narrow, transport))];
    expect((await Promise.all(held.map((one) => one.first))).every(live)).toBe(true);
    expect(await attempt(client(narrow, transport)).first).toMatchObject({
      code: 'TOO_MANY_SUBSCRIPTIONS',
      message: 'At most 2 subscriptions per client (over all its connections)',
      retryable: true,
    });
    held[0].stop();
    expect(await eventually(() => acceptedOn(narrow, transport))).toBe(true);
    held[1].stop();
  });

  test('connections per process: the one past the bound is refused, try again later', async () => {
    const held = [attempt(client(crowded, transport)), attempt(client(crowded, transport))];
    expect((await Promise.all(held.map((one) => one.first))).every(live)).toBe(true);
    expect(await attempt(client(crowded, transport)).first).toMatchObject(
      transport === 'WebSocket'
        ? { code: 1013, message: expect.stringMatching(/Too many subscription connections/) }
        : {
            code: 'TOO_MANY_SUBSCRIPTIONS',
            message: expect.stringMatching(/Too many subscription connections/),
          },
    );
    held.forEach((one) => one.stop());
    // WebSocket clients close their socket when their last subscription ends (lazy).
    expect(await eventually(() => acceptedOn(crowded, transport))).toBe(true);
  });

  test('connections per caller count both transports: past them, try again later', async () => {
    const other = transport === 'WebSocket' ? 'SSE' : 'WebSocket';
    const held = [attempt(client(perCaller, transport)), attempt(client(perCaller, other))];
    expect((await Promise.all(held.map((one) => one.first))).every(live)).toBe(true);
    expect(await attempt(client(perCaller, transport)).first).toMatchObject({
      code: transport === 'WebSocket' ? 1013 : 'TOO_MANY_SUBSCRIPTIONS',
      message: expect.stringMatching(/At most 2 connections per caller; try again later/),
    });
    held[0].stop();
    expect(await eventually(() => acceptedOn(perCaller, transport))).toBe(true);
    held[1].stop();
  });

  test('a peer that stops reading is closed, and its place comes back', async () => {
    let stop = () => {};
    const held = await eventually(() =>
      stalledPeer(stalled, transport).then(
        (stopPeer) => ((stop = stopPeer), true),
        () => false,
      ),
    );
    expect(held).toBe(true);
    try {
      expect(await acceptedOn(stalled, transport)).toBe(false);
      // Events for it to leave unread, until the service closes it (WebSocket: its pongs stop at
      // once; SSE: once the sockets' buffers are full, a write waits past keepAliveMs).
      let freed = false;
      for (let batch = 0; batch < 8 && !freed; batch += 1) {
        await createBatch(stalled);
        freed = await acceptedOn(stalled, transport);
      }
      expect(freed || (await eventually(() => acceptedOn(stalled, transport)))).toBe(true);
    } finally {
      stop();
    }
  });
});
