/**
 * Subscriptions over HTTP (Server-Sent Events, `/graphql/stream`) with the shipped client setups
 * (client/transports.ts) and the real libraries against the real server: Apollo Client
 * (`subscriptionLink(sseClient(...))`) and urql (`subscriptionsExchange(sseClient(...))`) each
 * receive `sequenceChanged` after `allocateSequence`; `userCreated` resumes `after:` a cursor over
 * SSE as over graphql-ws, missing nothing.
 */
import { ApolloClient, gql, InMemoryCache } from '@apollo/client';
import { Client as UrqlClient } from '@urql/core';
import type { Client as SseClient } from 'graphql-sse';
import { sseClient, subscriptionLink, subscriptionsExchange } from '../../client/transports';
import { startTestService, TEST_CLIENT, type TestService } from '../support/service';

const CLIENT = { authorization: `Bearer ${TEST_CLIENT.token}` };
const SEQUENCE_CHANGED = `subscription Changed($name: String!) {
  sequenceChanged(name: $name) { cursor sequence { id value } }
}`;
const USER_CREATED = `subscription Created($after: String) {
  userCreated(after: $after) { cursor user { id name } }
}`;
/** A hang fails the test instead of stalling it. */
const WAIT_MS = 20_000;

let service: TestService;
const opened: SseClient[] = [];

beforeAll(async () => {
  service = await startTestService();
  const defined = await service.graphql(
    'mutation { createSequence(input: { name: "watched" }) { error { code } } }',
    {},
    CLIENT,
  );
  expect(defined.body.data.createSequence.error).toBeNull();
});

afterAll(async () => {
  opened.forEach((client) => client.dispose());
  await service?.stop();
});

function sse(): SseClient {
  const client = sseClient(
    { url: `${service.url}/graphql`, token: TEST_CLIENT.token },
    { retryAttempts: 0 },
  );
  opened.push(client);
  return client;
}

const allocate = () =>
  service.graphql('mutation { allocateSequence(name: "watched") { range { first } } }', {}, CLIENT);

/** Resolves with the values of `sequenceChanged` once two arrived (allocating after the first). */
function twoValues(
  subscribe: (next: (value: number) => void, fail: (error: unknown) => void) => () => void,
): Promise<number[]> {
  const values: number[] = [];
  return new Promise<number[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${values.length} events`)), WAIT_MS);
    const stop = subscribe(
      (value) => {
        values.push(value);
        // The first event is the counter as it stands; allocate once it has arrived.
        if (values.length === 1) void allocate();
        if (values.length === 2) {
          clearTimeout(timer);
          stop();
          resolve(values);
        }
      },
      (error) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
      },
    );
  });
}

type Changed = { sequenceChanged: { sequence: { value: number } } };

test('Apollo Client receives sequenceChanged over SSE with the shipped link', async () => {
  const apollo = new ApolloClient({ link: subscriptionLink(sse()), cache: new InMemoryCache() });
  const values = await twoValues((next, fail) => {
    const subscription = apollo
      .subscribe<Changed>({ query: gql(SEQUENCE_CHANGED), variables: { name: 'watched' } })
      .subscribe({
        next: ({ data, error }) =>
          error ? fail(error) : next(data!.sequenceChanged.sequence.value),
        error: fail,
      });
    return () => subscription.unsubscribe();
  });
  expect(values[1]).toBe(values[0] + 1);
});

test('urql receives sequenceChanged over SSE with the shipped exchange', async () => {
  const urql = new UrqlClient({
    url: `${service.url}/graphql`,
    exchanges: [subscriptionsExchange(sse())],
  });
  const values = await twoValues((next, fail) => {
    const { unsubscribe } = urql
      .subscription<Changed>(SEQUENCE_CHANGED, { name: 'watched' })
      .subscribe((result) =>
        result.error ? fail(result.error) : next(result.data!.sequenceChanged.sequence.value),
      );
    return unsubscribe;
  });
  expect(values[1]).toBe(values[0] + 1);
});

test('userCreated over SSE resumes after a cursor and misses none', async () => {
  type Created = { userCreated: { cursor: string; user: { name: string } } };
  const client = sse();
  const create = (name: string) =>
    service.graphql(
      'mutation C($name: String!) { createUser(input: { name: $name }) { user { id } } }',
      { name },
      CLIENT,
    );
  const collect = (variables: Record<string, unknown>, until: (names: string[]) => boolean) => {
    const events: Created[] = [];
    let stop = () => {};
    const done = new Promise<Created[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${events.length} events`)), WAIT_MS);
      stop = client.subscribe<Created>(
        { query: USER_CREATED, variables },
        {
          next: (result) => {
            if (result.errors) return reject(new Error(JSON.stringify(result.errors)));
            events.push(result.data!);
            if (until(events.map((event) => event.userCreated.user.name))) {
              clearTimeout(timer);
              resolve(events);
            }
          },
          error: reject,
          complete: () => {},
        },
      );
    });
    return { done, events, stop: () => stop() };
  };
  const live = collect({}, (names) => names.includes('first'));
  // Create until the subscription is seen to be live.
  for (let i = 0; i < 40 && live.events.length === 0; i += 1) {
    await create('warm-up');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await create('first');
  const last = (await live.done).at(-1)!.userCreated.cursor;
  live.stop();
  await create('missed 1');
  await create('missed 2');
  const resumed = collect({ after: last }, (names) => names.includes('missed 2'));
  const names = (await resumed.done).map((event) => event.userCreated.user.name);
  resumed.stop();
  expect(names).toEqual(['missed 1', 'missed 2']);
});

test('stopping the service ends an open stream, and the stop does not wait for it', async () => {
  const stopping = await startTestService({ dbName: service.dbName });
  const client = sseClient(
    { url: `${stopping.url}/graphql`, token: TEST_CLIENT.token },
    { retryAttempts: 0 },
  );
  opened.push(client);
  let ended = false;
  const first = new Promise<void>((resolve, reject) => {
    client.subscribe(
      { query: SEQUENCE_CHANGED, variables: { name: 'watched' } },
      { next: () => resolve(), error: () => (ended = true), complete: () => (ended = true) },
    );
    setTimeout(() => reject(new Error('no event')), WAIT_MS);
  });
  await first;
  await stopping.stop();
  for (let i = 0; i < 50 && !ended; i += 1) await new Promise((r) => setTimeout(r, 100));
  expect(ended).toBe(true);
});
