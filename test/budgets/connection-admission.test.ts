/**
 * Connections nobody can crowd out (src/budgets/admission.ts, hooked into the WebSocket server of
 * src/graphql/subscriptions.ts), through the real HTTP server with raw `ws` sockets speaking
 * graphql-transport-ws:
 * - the flood: sockets that never send `connection_init`, churning from one address, while a
 *   client with a token connects again and again; every one of its connections is acknowledged;
 * - the same from many addresses (behind a trusted proxy) filling every awaiting place;
 * - a client holding its maximum of connections is refused the next, and another caller is not;
 * - a socket that stays silent is closed at `initWaitMs` (4408);
 * - budgets: connections past `subscriptionConnections` are closed 4429 with the wait in the
 *   reason, subscriptions past `subscriptions` answered RATE_LIMITED with `retryAfter`; a socket
 *   refused for want of room costs its caller no budget.
 */
import WebSocket from 'ws';
import { SUBSCRIPTIONS } from '../../src/limits';
import { ADMIN_HEADERS, CLIENT_HEADERS, servicesStoppedAfterAll } from '../support/service';
import { connect, hangUp, PROTOCOL, silentFlood, wsUrl, type Outcome } from './sockets';

const start = servicesStoppedAfterAll();

test('the flood: a token client connects 15 of 15 times while silent sockets from one address churn', async () => {
  const service = await start({ env: { NODE_ENV: 'production' } });
  const flood = silentFlood(service, 32);
  // Let the flood fill what it can before the client comes.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const outcomes: Outcome[] = [];
  for (let i = 0; i < 15; i += 1) {
    const outcome = await connect(service);
    outcomes.push(outcome);
    await hangUp(outcome);
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await flood.stop();
  expect(outcomes.filter((outcome) => outcome.acked)).toHaveLength(15);
  // The flood was held to its address's places: its sockets pushed each other out (1013).
  expect(flood.counts.opened).toBeGreaterThan(SUBSCRIPTIONS.awaitingInitPerAddress);
  expect(flood.counts.pushedOut).toBeGreaterThan(0);
});

test('silent sockets from many addresses fill only the awaiting places: tokens still connect', async () => {
  const service = await start({
    env: { NODE_ENV: 'production', TRUST_PROXY: '1' },
    subscriptionBounds: {
      ...SUBSCRIPTIONS,
      awaitingInit: 10,
      awaitingInitPerAddress: 2,
      connections: 4,
    },
  });
  const flood = silentFlood(service, 40, (loop) => ({ 'x-forwarded-for': `198.51.100.${loop}` }));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const held: Outcome[] = [];
  for (let i = 0; i < 4; i += 1)
    held.push(await connect(service, i % 2 ? CLIENT_HEADERS : ADMIN_HEADERS));
  await flood.stop();
  expect(held.filter((outcome) => outcome.acked)).toHaveLength(4);
  expect(flood.counts.pushedOut).toBeGreaterThan(0);
  // The connections' own cap still holds for callers that say who they are.
  const fifth = await connect(service);
  expect(fifth).toMatchObject({ acked: false, code: 1013 });
  await Promise.all(held.map(hangUp));
});

test('a client holding its maximum of connections cannot refuse another client', async () => {
  const other = { client: 'otherclient', token: 'other-client-token-0123456789abcdefghij' };
  const service = await start({
    env: {
      NODE_ENV: 'production',
      CLIENT_TOKENS: `testclient:test-client-token-0123456789abcdefgh,${other.client}:${other.token}`,
    },
    subscriptionBounds: { ...SUBSCRIPTIONS, connectionsPerCaller: 3, connections: 10 },
  });
  const mine = await Promise.all([1, 2, 3].map(() => connect(service)));
  expect(mine.every((outcome) => outcome.acked)).toBe(true);
  const fourth = await connect(service);
  expect(fourth).toMatchObject({ acked: false, code: 1013 });
  expect((fourth as { reason: string }).reason).toMatch(/At most 3 connections per caller/);
  const theirs = await connect(service, { authorization: `Bearer ${other.token}` });
  expect(theirs.acked).toBe(true);
  // A connection that leaves gives its place back.
  await hangUp(mine[0]);
  const again = await connect(service);
  expect(again.acked).toBe(true);
  await Promise.all([...mine.slice(1), theirs, again].map(hangUp));
});

test('a socket that never sends connection_init is closed at initWaitMs', async () => {
  const service = await start({ subscriptionBounds: { ...SUBSCRIPTIONS, initWaitMs: 300 } });
  const closed = await new Promise<number>((resolve) => {
    const socket = new WebSocket(wsUrl(service), PROTOCOL);
    socket.on('close', (code) => resolve(code));
  });
  expect(closed).toBe(4408);
});

test('budgets: connections past subscriptionConnections are closed 4429, subscriptions RATE_LIMITED', async () => {
  const service = await start({
    env: { BUDGETS: 'subscriptionConnections.client=2/600,subscriptions.client=1/600' },
  });
  const first = await connect(service);
  const second = await connect(service);
  expect([first.acked, second.acked]).toEqual([true, true]);
  await hangUp(second);
  const third = await connect(service);
  expect(third).toMatchObject({ acked: false, code: 4429 });
  expect((third as { reason: string }).reason).toMatch(/^Rate limited; retry after \d+ s$/);

  if (!first.acked) throw new Error('unreachable');
  const subscribe = (id: string) =>
    first.socket.send(
      JSON.stringify({
        id,
        type: 'subscribe',
        payload: { query: 'subscription { userCreated { user { id } } }' },
      }),
    );
  const refused = new Promise<{ extensions: Record<string, unknown> }>((resolve) => {
    first.socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.type === 'error' && message.id === 'b') resolve(message.payload[0]);
    });
  });
  subscribe('a');
  subscribe('b');
  const error = await refused;
  expect(error.extensions).toMatchObject({
    code: 'RATE_LIMITED',
    retryable: true,
    budget: 'subscriptions',
  });
  expect(error.extensions.retryAfter).toBeGreaterThanOrEqual(1);
  await hangUp(first);
});

test('a socket refused for want of room costs its caller no subscriptionConnections budget', async () => {
  const service = await start({
    env: { BUDGETS: 'subscriptionConnections.client=2/600' },
    subscriptionBounds: { ...SUBSCRIPTIONS, connectionsPerCaller: 1 },
  });
  const held = await connect(service);
  expect(held.acked).toBe(true);
  for (let i = 0; i < 3; i += 1) {
    const refused = await connect(service);
    expect(refused).toMatchObject({ acked: false, code: 1013 });
    expect((refused as { reason: string }).reason).toMatch(/At most 1 connections per caller/);
  }
  // The budget of 2 paid for the held connection only: the next one after it leaves is admitted.
  await hangUp(held);
  const again = await connect(service);
  expect(again.acked).toBe(true);
  await hangUp(again);
});
