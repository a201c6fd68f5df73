/**
 * The subscription server's bounds and heartbeats (src/graphql/subscriptions.ts), through the real
 * HTTP server with the real graphql-ws client over `ws`:
 * - per connection and per client (over all its connections): the subscription past the bound is
 *   answered TOO_MANY_SUBSCRIPTIONS (retryable), the others go on, and the room a subscription held
 *   comes back when it ends or its connection closes;
 * - connections per process: the one past the bound is closed with 1013 (try again later);
 * - heartbeats: a live client is pinged every `keepAliveMs` and stays; a peer that stops answering
 *   pings is terminated, and its subscriptions, their change streams and their room go with it.
 * The bounds are narrowed for the test (the service's own are in src/limits.ts `SUBSCRIPTIONS`).
 */
import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { SUBSCRIPTIONS } from '../../src/limits';
import { startStandin, type RunningStandin } from 'mongodb-standin';
import {
  ADMIN_HEADERS,
  CLIENT_HEADERS,
  startTestService,
  type TestService,
} from '../support/service';

const SEQUENCE_CHANGED = `subscription Changed($name: String!) {
  sequenceChanged(name: $name) { sequence { value } }
}`;
/** Far above any wait here on a quiet machine; a hang fails the test instead of stalling it. */
const WAIT_MS = 30_000;

const opened: WsClient[] = [];
let service: TestService;
let watched: TestService;
let standin: RunningStandin;

beforeAll(async () => {
  service = await startTestService({
    subscriptionBounds: { ...SUBSCRIPTIONS, perConnection: 3, perClient: 5, connections: 6 },
  });
  // Its own database, so the change streams (server cursors) counted are its subscriptions'.
  standin = await startStandin({ log: () => {} });
  watched = await startTestService({
    mongodbUri: standin.uri,
    subscriptionBounds: { ...SUBSCRIPTIONS, perClient: 2, keepAliveMs: 5_000 },
  });
  for (const [via, name] of [
    [service, 'watched'],
    [watched, 'watched'],
    [watched, 'unanswered'],
  ] as const) {
    const defined = await via.graphql(
      'mutation D($name: String!) { createSequence(input: { name: $name }) { error { code } } }',
      { name },
      CLIENT_HEADERS,
    );
    expect(defined.body.data.createSequence.error).toBeNull();
  }
});

afterAll(async () => {
  await Promise.all(opened.map((client) => client.dispose()));
  await Promise.all([service?.stop(), watched?.stop()]);
  await standin?.stop();
});

/** A graphql-ws client over `socket` (ws's WebSocket unless a test needs another). */
function wsClient(
  via: TestService,
  headers: Record<string, string> = CLIENT_HEADERS,
  socket: unknown = WebSocket,
): WsClient {
  const client = createClient({
    url: `${via.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: socket,
    connectionParams: headers,
    retryAttempts: 0,
    lazy: true,
  });
  opened.push(client);
  return client;
}

interface Watch {
  /** Resolves at the first event (the sequence as it stands: the subscription is live). */
  live: Promise<void>;
  /** Resolves with the error the subscription ends with. */
  failed: Promise<unknown>;
  stop(): void;
}

function watch(client: WsClient, name = 'watched'): Watch {
  let stop = () => {};
  let settle: (error: unknown) => void = () => {};
  const failed = new Promise<unknown>((resolve) => (settle = resolve));
  const live = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no event within the wait')), WAIT_MS);
    stop = client.subscribe(
      { query: SEQUENCE_CHANGED, variables: { name } },
      {
        next: () => {
          clearTimeout(timer);
          resolve();
        },
        error: (error) => {
          clearTimeout(timer);
          settle(error);
          reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
        },
        complete: () => clearTimeout(timer),
      },
    );
  });
  live.catch(() => undefined); // read through `failed` by the tests that expect a refusal
  return { live, failed, stop: () => stop() };
}

/** The subscription is refused by a bound: its one message is TOO_MANY_SUBSCRIPTIONS. */
async function expectRefused(client: WsClient, bound: RegExp): Promise<void> {
  const errors = (await watch(client).failed) as Array<{
    message: string;
    extensions?: { code?: string; retryable?: boolean };
  }>;
  expect(errors).toHaveLength(1);
  expect(errors[0].message).toMatch(bound);
  expect(errors[0].extensions).toMatchObject({ code: 'TOO_MANY_SUBSCRIPTIONS', retryable: true });
}

/** Tries `attempt` until it answers true, at most 150 times a bounded wait apart. */
async function eventually(attempt: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 150; i += 1) {
    if (await attempt()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/** A new subscription on `client` is accepted (true) or refused (false). */
async function accepted(client: WsClient): Promise<boolean> {
  const attempt = watch(client);
  const outcome = await Promise.race([
    attempt.live.then(() => true),
    attempt.failed.then(() => false),
  ]);
  if (!outcome) return false;
  attempt.stop();
  return true;
}

test('per connection and per client: the one past the bound is TOO_MANY_SUBSCRIPTIONS, and room comes back', async () => {
  const first = wsClient(service);
  const held = [watch(first), watch(first), watch(first)];
  await Promise.all(held.map((subscription) => subscription.live));
  await expectRefused(first, /At most 3 subscriptions per connection/);

  // The same client on a second connection: 3 + 2 reach its bound of 5.
  const second = wsClient(service);
  const more = [watch(second), watch(second)];
  await Promise.all(more.map((subscription) => subscription.live));
  await expectRefused(second, /At most 5 subscriptions per client \(over all its connections\)/);
  // Another caller is not held back by this client's bound.
  await watch(wsClient(service, ADMIN_HEADERS)).live;

  // A subscription that ends gives its room back to its client, on any connection.
  held[0].stop();
  expect(await eventually(() => accepted(second))).toBe(true);
  // A connection that closes gives back all it held: first's other two.
  await first.dispose();
  const third = wsClient(service);
  expect(await eventually(() => accepted(third))).toBe(true);
  const after = [watch(third), watch(third), watch(third)];
  await Promise.all(after.map((subscription) => subscription.live));
  // 2 on the second connection and 3 on the third: the client is at its bound again.
  await expectRefused(wsClient(service), /At most 5 subscriptions per client/);
});

test('connections per process: the one past the bound is closed with 1013, and one that leaves makes room', async () => {
  const crowded = await startTestService({
    dbName: service.dbName,
    subscriptionBounds: { ...SUBSCRIPTIONS, connections: 2 },
  });
  try {
    const [one, two] = [wsClient(crowded), wsClient(crowded)];
    await Promise.all([watch(one).live, watch(two).live]);
    const closed = (await watch(wsClient(crowded)).failed) as { code?: number; reason?: string };
    expect(closed.code).toBe(1013);
    expect(closed.reason).toMatch(/Too many subscription connections; try again later/);
    await one.dispose();
    expect(await eventually(() => accepted(wsClient(crowded)))).toBe(true);
  } finally {
    await crowded.stop();
  }
});

/** ws's WebSocket, counting the pings it receives (and answering them, as ws does). */
class CountingPings extends WebSocket {
  static pings = 0;
  constructor(address: string, protocols?: string | string[]) {
    super(address, protocols);
    this.on('ping', () => (CountingPings.pings += 1));
  }
}

/** A peer that has gone silent: its socket stays open but never answers a ping. */
class DeadPeer extends WebSocket {
  constructor(address: string, protocols?: string | string[]) {
    super(address, protocols, { autoPong: false });
  }
}

test('heartbeats: a live client is pinged and stays; a peer that stops answering is dropped with all it held', async () => {
  const openCursors = async (): Promise<number> =>
    (await watched.client.db('admin').command({ serverStatus: 1 })).metrics.cursor.open.total;
  const before = await openCursors();

  const live = wsClient(watched, CLIENT_HEADERS, CountingPings);
  let liveClosed = false;
  live.on('closed', () => (liveClosed = true));
  await watch(live).live;
  const dead = wsClient(watched, CLIENT_HEADERS, DeadPeer);
  const deadClosed = new Promise<number>((resolve) =>
    dead.on('closed', (event) => resolve((event as { code: number }).code)),
  );
  // Another sequence, so its change stream is its own (subscribers of one share one).
  await watch(dead, 'unanswered').live;
  expect(await openCursors()).toBe(before + 2);
  await expectRefused(wsClient(watched), /At most 2 subscriptions per client/);

  // The server terminates the silent peer after one unanswered ping (1006: no close frame).
  expect(await deadClosed).toBe(1006);
  // Its change stream is closed and its room is free again; the live client is untouched.
  // (on failure the counts say whose cursor stayed: the dead peer's, or a stream resumed twice)
  let cursors = 0;
  const freed = await eventually(async () => (cursors = await openCursors()) === before + 1);
  expect({ freed, cursors }).toEqual({ freed: true, cursors: before + 1 });
  expect(await eventually(() => accepted(wsClient(watched)))).toBe(true);
  expect(await eventually(async () => CountingPings.pings >= 2)).toBe(true);
  expect(liveClosed).toBe(false);
});
