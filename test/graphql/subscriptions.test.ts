/**
 * GraphQL subscriptions over graphql-ws on the service's own port and path (issue 22), with the
 * real client libraries and the real HTTP server over the harness's database (change streams):
 * - Apollo Client (`GraphQLWsLink`) and urql (`subscriptionExchange`) receive `sequenceChanged`
 *   after `allocateSequence`;
 * - `userCreated(filter)` announces the users the filter admits, from any instance; a subscriber
 *   that resumes after its last event's cursor misses none of the users created meanwhile;
 * - the token is checked at `connection_init` (4403 for one that proves no one) and each
 *   subscription by the role table; the per-connection bound; only subscriptions over WebSocket.
 */
import { ApolloClient, InMemoryCache, gql } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { Client as UrqlClient, subscriptionExchange } from '@urql/core';
import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { SUBSCRIPTIONS } from '../../src/limits';
import { startStandin } from 'mongodb-standin';
import {
  ADMIN_HEADERS,
  startTestService,
  TEST_CLIENT,
  twoInstancesOnOneDatabase,
  type TestService,
} from '../support/service';

const CLIENT = { authorization: `Bearer ${TEST_CLIENT.token}` };
const SEQUENCE_CHANGED = `subscription Changed($name: String!) {
  sequenceChanged(name: $name) { cursor sequence { id value next } }
}`;
const USER_CREATED = `subscription Created($filter: UserFilter, $after: String) {
  userCreated(filter: $filter, after: $after) { cursor user { id name createdWith } }
}`;

const opened: Array<{ dispose(): unknown }> = [];
// Declared before the instances: jest runs afterAll hooks in the order declared, so the clients
// close before the instances stop.
afterAll(async () => {
  await Promise.all(opened.map((client) => client.dispose()));
});

const instances = twoInstancesOnOneDatabase();

beforeAll(async () => {
  const defined = await instances.first.graphql(
    'mutation { createSequence(input: { name: "watched" }) { error { code } } }',
    {},
    CLIENT,
  );
  expect(defined.body.data.createSequence.error).toBeNull();
});

const wsUrl = (via: TestService) => `${via.url.replace(/^http/, 'ws')}/graphql`;

function wsClient(
  via: TestService = instances.first,
  authorization = CLIENT.authorization,
): WsClient {
  const client = createClient({
    url: wsUrl(via),
    webSocketImpl: WebSocket,
    connectionParams: { authorization },
    retryAttempts: 0,
    lazy: true,
  });
  opened.push(client);
  return client;
}

/** Collects what a subscription sends until `until` holds (or 20 s pass: the test then fails). */
function collect<T>(
  client: WsClient,
  query: string,
  variables: Record<string, unknown>,
  until: (events: T[]) => boolean,
): { done: Promise<T[]>; events: T[]; stop(): void } {
  const events: T[] = [];
  let stop = () => {};
  const done = new Promise<T[]>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out with ${events.length} events`)),
      20_000,
    );
    stop = client.subscribe<T>(
      { query, variables },
      {
        next: (result) => {
          if (result.errors) return reject(new Error(JSON.stringify(result.errors)));
          events.push(result.data as T);
          if (until(events)) {
            clearTimeout(timer);
            resolve(events);
          }
        },
        error: (error) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
        },
        complete: () => clearTimeout(timer),
      },
    );
  });
  return { done, events, stop: () => stop() };
}

/** Waits until `done` holds, polling a bounded number of times. */
async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i += 1) await new Promise((r) => setTimeout(r, 100));
  expect(done()).toBe(true);
}

const allocate = (via: TestService = instances.first) =>
  via.graphql('mutation { allocateSequence(name: "watched") { range { first } } }', {}, CLIENT);

test('Apollo Client (GraphQLWsLink) receives sequenceChanged after allocateSequence', async () => {
  const ws = wsClient();
  const apollo = new ApolloClient({ link: new GraphQLWsLink(ws), cache: new InMemoryCache() });
  const values: number[] = [];
  const received = new Promise<void>((resolve, reject) => {
    const subscription = apollo
      .subscribe<{ sequenceChanged: { sequence: { value: number } } }>({
        query: gql(SEQUENCE_CHANGED),
        variables: { name: 'watched' },
      })
      .subscribe({
        next: ({ data, error }) => {
          if (error) return reject(error);
          values.push(data!.sequenceChanged.sequence.value);
          // The first event is the counter as it stands; allocate once it has arrived.
          if (values.length === 1) void allocate(instances.second);
          if (values.length === 2) {
            subscription.unsubscribe();
            resolve();
          }
        },
        error: reject,
      });
  });
  await received;
  expect(values[1]).toBe(values[0] + 1);
});

test('urql (subscriptionExchange) receives sequenceChanged after allocateSequence', async () => {
  const ws = wsClient();
  const urql = new UrqlClient({
    url: `${instances.first.url}/graphql`,
    exchanges: [
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({
            unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink),
          }),
        }),
      }),
    ],
  });
  const values: number[] = [];
  await new Promise<void>((resolve, reject) => {
    const { unsubscribe } = urql
      .subscription<{ sequenceChanged: { sequence: { value: number } } }>(SEQUENCE_CHANGED, {
        name: 'watched',
      })
      .subscribe((result) => {
        if (result.error) return reject(result.error);
        values.push(result.data!.sequenceChanged.sequence.value);
        if (values.length === 1) void allocate();
        if (values.length === 2) {
          unsubscribe();
          resolve();
        }
      });
  });
  expect(values[1]).toBe(values[0] + 1);
});

test('userCreated announces what its filter admits, from every instance; resuming misses none', async () => {
  const create = (via: TestService, name: string, strategy: string) =>
    via.graphql(
      'mutation C($input: CreateUserInput!, $strategy: IdStrategy) { createUser(input: $input, strategy: $strategy) { user { id } } }',
      { input: { name }, strategy },
      CLIENT,
    );
  type Created = { userCreated: { cursor: string; user: { id: string; name: string } } };
  const names = (events: Created[]) => events.map((event) => event.userCreated.user.name);
  // Subscribe, then create until the subscription is seen to be live.
  const live = collect<Created>(
    wsClient(),
    USER_CREATED,
    { filter: { createdWith: 'BLOCK' } },
    (e) => names(e).includes('first'),
  );
  for (let i = 0; i < 40 && !names(live.events).includes('first'); i += 1) {
    await create(instances.first, 'warm-up', 'BLOCK');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await create(instances.second, 'first', 'BLOCK');
  await live.done;
  const last = live.events.at(-1)!.userCreated.cursor;
  live.stop();
  // While nobody listens: three BLOCK users (two instances) and one COUNTER user.
  await create(instances.first, 'missed 1', 'BLOCK');
  await create(instances.second, 'not BLOCK', 'COUNTER');
  await create(instances.second, 'missed 2', 'BLOCK');
  await create(instances.first, 'missed 3', 'BLOCK');
  const resumed = collect<Created>(
    wsClient(instances.second),
    USER_CREATED,
    { filter: { createdWith: 'BLOCK' }, after: last },
    (events) => events.length >= 3,
  );
  expect(names(await resumed.done)).toEqual(['missed 1', 'missed 2', 'missed 3']);
  resumed.stop();
});

test('connection_init: a token that proves no one is closed with 4403; a malformed cursor is BAD_USER_INPUT', async () => {
  const refused = wsClient(instances.first, `Bearer ${'x'.repeat(40)}`);
  const closed = new Promise<number>((resolve) =>
    refused.on('closed', (event) => resolve((event as { code: number }).code)),
  );
  const attempt = collect(refused, SEQUENCE_CHANGED, { name: 'watched' }, () => true);
  await expect(attempt.done).rejects.toBeDefined();
  expect(await closed).toBe(4403);

  const bad = collect(wsClient(), USER_CREATED, { after: 'not a cursor!' }, () => true);
  await expect(bad.done).rejects.toThrow(/BAD_USER_INPUT/);
});

test('only subscriptions go over WebSocket, and a connection holds a bounded number', async () => {
  const ws = wsClient();
  const query = collect(ws, '{ nextSequence(name: "watched") }', {}, () => true);
  await expect(query.done).rejects.toThrow(/Only subscriptions/);
  const held = Array.from({ length: SUBSCRIPTIONS.perConnection }, () =>
    collect(ws, SEQUENCE_CHANGED, { name: 'watched' }, (events) => events.length >= 1),
  );
  await Promise.all(held.map((subscription) => subscription.done));
  const beyond = collect(ws, SEQUENCE_CHANGED, { name: 'watched' }, () => true);
  await expect(beyond.done).rejects.toThrow(/per connection/);
  held.forEach((subscription) => subscription.stop());
});

test('a sequence of another owner is not found, as over HTTP', async () => {
  const open = collect(
    wsClient(instances.first, ''),
    SEQUENCE_CHANGED,
    { name: 'watched' },
    () => true,
  );
  await expect(open.done).rejects.toThrow(/SEQUENCE_NOT_FOUND/);
});

test('subscribers of one sequence share one change stream, closed on the server when the last leaves', async () => {
  // A private database, so no other test's cursors are counted.
  const standin = await startStandin({ log: () => {} });
  const own = await startTestService({ mongodbUri: standin.uri });
  try {
    for (const name of ['watched', 'other']) {
      await own.graphql(
        'mutation D($name: String!) { createSequence(input: { name: $name }) { error { code } } }',
        { name },
        CLIENT,
      );
    }
    const openCursors = async (): Promise<number> =>
      (await own.client.db('admin').command({ serverStatus: 1 })).metrics.cursor.open.total;
    const settled = async (expected: number) => {
      for (let i = 0; i < 100 && (await openCursors()) !== expected; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return openCursors();
    };
    const before = await openCursors();
    const ws = wsClient(own);
    const watching = [1, 2, 3].map(() =>
      collect(ws, SEQUENCE_CHANGED, { name: 'watched' }, (events) => events.length >= 1),
    );
    const elsewhere = collect(
      wsClient(own),
      SEQUENCE_CHANGED,
      { name: 'other' },
      (events) => events.length >= 1,
    );
    await Promise.all([...watching, elsewhere].map((subscription) => subscription.done));
    // One stream per sequence, however many watch it.
    expect(await openCursors()).toBe(before + 2);
    watching[0].stop();
    elsewhere.stop();
    expect(await settled(before + 1)).toBe(before + 1);
    await ws.dispose();
    expect(await settled(before)).toBe(before);
  } finally {
    await own.stop();
    await standin.stop();
  }
});

test('sequenceChanged and the counter-write metric see only committed writes: a refused TRANSACTION create is neither', async () => {
  // Its own database: the metric and the counter are this test's alone.
  const own = await startTestService();
  const create = (email: string) =>
    own.graphql(
      'mutation C($input: CreateUserInput!) { createUser(input: $input, strategy: TRANSACTION) { user { id } error { code } } }',
      { input: { name: 'counted', email } },
      ADMIN_HEADERS,
    );
  const counterWrites = async (): Promise<number> => {
    const text = await (await fetch(`${own.url}/metrics`, { headers: ADMIN_HEADERS })).text();
    const line =
      /^sequential_ids_counter_document_writes_total\{[^}]*sequence="userid"[^}]*\} (\d+)$/m.exec(
        text,
      );
    return line === null ? 0 : Number(line[1]);
  };
  try {
    expect((await create('first@example.com')).body.data.createUser.user.id).toBe('1');
    type Changed = { sequenceChanged: { sequence: { value: number } } };
    const watching = collect<Changed>(
      wsClient(own, ADMIN_HEADERS.authorization),
      SEQUENCE_CHANGED,
      { name: 'userid' },
      (events) => events.length >= 2,
    );
    await waitFor(() => watching.events.length >= 1);
    // Refused inside the transaction: its `$inc` is rolled back with the insert.
    expect((await create('first@example.com')).body.data.createUser.error.code).toBe('EMAIL_TAKEN');
    expect((await create('second@example.com')).body.data.createUser.user.id).toBe('2');
    const values = (await watching.done).map((event) => event.sequenceChanged.sequence.value);
    expect(values).toEqual([1, 2]);
    expect(await counterWrites()).toBe(2);
    watching.stop();
  } finally {
    await own.stop();
  }
});
