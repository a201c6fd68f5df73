/**
 * Both list shapes of the shipped cache configurations (client/apollo.ts, client/urql.ts), with
 * the real libraries against the real server, and their totals after every change:
 * - a paged view (the default): page 2 shows the server's page 2; `first: 5` after `first: 2`
 *   shows 5;
 * - an infinite list (Apollo `@connection(key: "infinite")`, urql `@_infinite`): pages merge;
 * - after create, delete (of a user a cached list did not hold, too), `createUsers` and each
 *   `userCreated` event (received over SSE with client/transports.ts), every cached list shows
 *   the server's `totalCount` and items, and no view sends a request: the payloads and events
 *   hold what the lists need. The one exception to "the server's items" is by design: a page that
 *   lost a deleted user shows one item fewer (its next item is in no payload), says more follow,
 *   and pages on from its end cursor with nothing skipped (client/lists.ts).
 */
import { ApolloClient, HttpLink, InMemoryCache, split } from '@apollo/client';
import { getMainDefinition } from '@apollo/client/utilities';
import { Client, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import type { Client as SseClient } from 'graphql-sse';
import { parse, type DocumentNode } from 'graphql';
import { typePolicies } from '../../client/apollo';
import { sseClient, subscriptionLink, subscriptionsExchange } from '../../client/transports';
import { graphcacheOptions } from '../../client/urql';
import { urqlViews } from './views';
import {
  ADMIN_HEADERS,
  startTestService,
  TEST_ADMIN_TOKEN,
  type TestService,
} from '../support/service';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read freely (ARCHITECTURE.md)
type Data = any;
const WAIT_MS = 20_000;

interface Driver {
  view(document: DocumentNode, variables?: object): Promise<Data>;
  mutate(document: DocumentNode, variables?: object): Promise<Data>;
  /** Subscribes to `userCreated`; resolves once `count` events arrived (written to the cache). */
  events(count: number): { ready: Promise<void>; received: Promise<void>; stop(): void };
  /** HTTP requests of queries and mutations sent so far. */
  requests(): number;
  /** Apollo only: `fetchMore` of an infinite list. */
  more?(document: DocumentNode, variables: object): Promise<void>;
}

const sse: SseClient[] = [];
afterAll(() => sse.forEach((client) => client.dispose()));

function subscriptions(service: TestService): SseClient {
  const client = sseClient(
    { url: `${service.url}/graphql`, token: TEST_ADMIN_TOKEN },
    { retryAttempts: 0 },
  );
  sse.push(client);
  return client;
}

const USER_CREATED = parse(`subscription Created {
  userCreated { cursor user { id name createdWith invitedById } }
}`);

/** Resolves once `count` results arrived from `subscribe`. */
function awaitEvents(count: number, subscribe: (next: () => void) => () => void) {
  let stop = () => {};
  let seen = 0;
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const received = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${seen} of ${count} events`)), WAIT_MS);
    stop = subscribe(() => {
      seen += 1;
      if (seen >= count) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  // The stream is open once the server answered its request; a short wait covers the change
  // stream's opening (the SSE transport has no acknowledgement message).
  void new Promise((resolve) => setTimeout(resolve, 500)).then(markReady);
  return { ready, received, stop: () => stop() };
}

function apollo(service: TestService): Driver {
  const counter = { n: 0 };
  const http = new HttpLink({
    uri: `${service.url}/graphql`,
    headers: ADMIN_HEADERS,
    fetch: (input, init) => {
      counter.n += 1;
      return fetch(input, init);
    },
  });
  const isSubscription = ({ query }: { query: DocumentNode }) => {
    const definition = getMainDefinition(query);
    return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
  };
  const client = new ApolloClient({
    link: split(isSubscription, subscriptionLink(subscriptions(service)), http),
    cache: new InMemoryCache({ typePolicies }),
  });
  return {
    view: async (query, variables) => (await client.query({ query, variables })).data,
    mutate: async (mutation, variables) => (await client.mutate({ mutation, variables })).data,
    events: (count) =>
      awaitEvents(count, (next) => {
        const subscription = client.subscribe({ query: USER_CREATED }).subscribe({ next });
        return () => subscription.unsubscribe();
      }),
    requests: () => counter.n,
    more: async (query, variables) => {
      await client.watchQuery({ query }).fetchMore({ variables });
    },
  };
}

function urql(service: TestService): Driver {
  const counter = { n: 0 };
  const client = new Client({
    url: `${service.url}/graphql`,
    exchanges: [
      cacheExchange(graphcacheOptions),
      subscriptionsExchange(subscriptions(service)),
      fetchExchange,
    ],
    fetch: (input, init) => {
      counter.n += 1;
      return fetch(input, init);
    },
    fetchOptions: { headers: ADMIN_HEADERS },
    preferGetMethod: false,
  });
  return {
    ...urqlViews(client),
    events: (count) =>
      awaitEvents(
        count,
        (next) => client.subscription(USER_CREATED, {}).subscribe(next).unsubscribe,
      ),
    requests: () => counter.n,
  };
}

const PAGE =
  parse(`query Page($first: Int, $after: String, $order: UserOrder, $filter: UserFilter) {
  users(first: $first, after: $after, order: $order, filter: $filter) {
    edges { cursor node { id name } } totalCount pageInfo { hasNextPage hasPreviousPage endCursor }
  }
}`);
const APOLLO_INFINITE = parse(`query Feed($first: Int, $after: String) {
  users(first: $first, after: $after) @connection(key: "infinite") {
    edges { cursor node { id name } } totalCount pageInfo { hasNextPage endCursor }
  }
}`);
const URQL_INFINITE = parse(`query Feed($first: Int, $after: String) {
  users(first: $first, after: $after) @_infinite {
    edges { cursor node { id name } } totalCount pageInfo { hasNextPage endCursor }
  }
}`);
const CREATE = parse(`mutation Create($input: CreateUserInput!, $strategy: IdStrategy) {
  createUser(input: $input, strategy: $strategy) { user { id name createdWith } userEdge { cursor node { id } } error { code } }
}`);
const CREATE_MANY = parse(`mutation CreateMany($inputs: [CreateUserInput!]!) {
  createUsers(inputs: $inputs) { created results { index user { id name createdWith } userEdge { cursor node { id } } error { code } } }
}`);
const DELETE = parse(`mutation Delete($id: ID!) {
  deleteUser(id: $id) { deletedUserId user { id createdWith invitedById } error { code } }
}`);

const ids = (connection: Data): string[] =>
  connection.edges.map((edge: { node: { id: string } }) => edge.node.id);

/** The server's answer to `PAGE`, straight over HTTP. */
async function serverPage(service: TestService, variables: object): Promise<Data> {
  const answer = await service.graphql(PAGE.loc!.source.body, variables, ADMIN_HEADERS);
  return answer.body.data.users;
}

/** The views a dashboard keeps, each compared with the server's answer to the same query. */
const VIEWS = [
  { first: 3 }, // page 1
  { first: 3, order: 'ID_DESC' }, // the latest sign-ups
  { first: 2, after: 'second page: filled in by the test' },
  { first: 3, filter: { createdWith: 'BLOCK' } }, // a list the deleted and created users are not in
];

describe.each([
  ['Apollo Client', apollo],
  ['urql graphcache', urql],
] as const)('%s', (_library, make) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
    const seeded = await service.graphql(
      'mutation S($inputs: [CreateUserInput!]!) { createUsers(inputs: $inputs) { created } }',
      { inputs: Array.from({ length: 7 }, (_, i) => ({ name: `seed ${i + 1}` })) },
      ADMIN_HEADERS,
    );
    expect(seeded.body.data.createUsers.created).toBe(7);
    await service.graphql(
      'mutation { createUser(input: { name: "by block" }, strategy: BLOCK) { user { id } } }',
      {},
      ADMIN_HEADERS,
    );
  });
  afterAll(() => service?.stop());

  test('a paged view: page 2 is the server page 2, and first: 5 after first: 2 shows 5', async () => {
    const client = make(service);
    const page1 = (await client.view(PAGE, { first: 2 })).users;
    const page2 = (await client.view(PAGE, { first: 2, after: page1.pageInfo.endCursor })).users;
    expect(ids(page2)).toEqual(
      ids(await serverPage(service, { first: 2, after: page1.pageInfo.endCursor })),
    );
    expect(ids(page2)).toHaveLength(2);
    expect(ids(page2)).not.toEqual(ids(page1));
    expect(ids((await client.view(PAGE, { first: 5 })).users)).toHaveLength(5);
    // Page 1 is still page 1.
    expect(ids((await client.view(PAGE, { first: 2 })).users)).toEqual(ids(page1));
  });

  test('an infinite list: its pages merge', async () => {
    const client = make(service);
    if (client.more !== undefined) {
      const first = (await client.view(APOLLO_INFINITE, { first: 2 })).users;
      await client.more(APOLLO_INFINITE, { first: 2, after: first.pageInfo.endCursor });
      const grown = (await client.view(APOLLO_INFINITE, { first: 2 })).users;
      expect(ids(grown)).toEqual(ids(await serverPage(service, { first: 4 })));
    } else {
      const first = (await client.view(URQL_INFINITE, { first: 2 })).users;
      const merged = (
        await client.view(URQL_INFINITE, { first: 2, after: first.pageInfo.endCursor })
      ).users;
      expect(ids(merged)).toEqual(ids(await serverPage(service, { first: 4 })));
    }
  });

  test('totals match the server after create, delete, createUsers and each userCreated event', async () => {
    const client = make(service);
    const page1 = await serverPage(service, { first: 2 });
    const views = VIEWS.map((view) =>
      'after' in view ? { ...view, after: page1.pageInfo.endCursor } : view,
    );
    const load = () => Promise.all(views.map((view) => client.view(PAGE, view)));
    await load();
    /**
     * Every view read from the cache against the server: the views that differ, those that show
     * the server's page short of its last items while saying more follow (shrunk), and the
     * requests sent.
     */
    const compare = async (step: string) => {
      const before = client.requests();
      const shown = (await load()).map((answer) => answer.users);
      const requests = client.requests() - before;
      const server = await Promise.all(views.map((view) => serverPage(service, view)));
      const rows = shown.map((list, i) => ({
        view: JSON.stringify(views[i]),
        shown: [list.totalCount, ids(list)],
        server: [server[i].totalCount, ids(server[i])],
      }));
      const isShrunk = (i: number) =>
        shown[i].totalCount === server[i].totalCount &&
        ids(shown[i]).length < ids(server[i]).length &&
        shown[i].pageInfo.hasNextPage &&
        JSON.stringify(ids(shown[i])) ===
          JSON.stringify(ids(server[i]).slice(0, ids(shown[i]).length));
      const differs = (i: number) =>
        JSON.stringify(rows[i].shown) !== JSON.stringify(rows[i].server);
      return {
        step,
        wrong: rows.filter((_, i) => differs(i) && !isShrunk(i)),
        shrunk: rows.filter((_, i) => differs(i) && isShrunk(i)).map((row) => row.view),
        requests,
        shown,
        server,
      };
    };
    const steps = [];

    const created = (await client.mutate(CREATE, { input: { name: 'created' } })).createUser.user;
    steps.push(await compare('create'));
    await client.mutate(CREATE_MANY, { inputs: [{ name: 'batch 1' }, { name: 'batch 2' }] });
    steps.push(await compare('createUsers'));
    // On the latest sign-ups only: page 1, page 2 and the BLOCK list did not hold it; the first
    // two count it out all the same, the BLOCK list (another strategy) does not.
    await client.mutate(DELETE, { id: created.id });
    const deleted = await compare('delete');
    steps.push(deleted);
    // The shrunk latest-sign-ups page pages on from its end cursor with nothing skipped: the
    // server's next page starts with the item the page no longer shows.
    const latest = VIEWS.findIndex((view) => view.order === 'ID_DESC');
    const next = await serverPage(service, {
      ...views[latest],
      after: deleted.shown[latest].pageInfo.endCursor,
    });
    expect(ids(next)[0]).toBe(ids(deleted.server[latest]).at(-1));

    const events = client.events(2);
    await events.ready;
    for (const name of ['elsewhere 1', 'elsewhere 2']) {
      await service.graphql(
        'mutation C($name: String!) { createUser(input: { name: $name }) { user { id } } }',
        { name },
        ADMIN_HEADERS,
      );
    }
    await events.received;
    events.stop();
    steps.push(await compare('two userCreated events'));

    // On the delete, the latest-sign-ups page held the deleted user: it is one short; every other
    // view, and every view after the two events, is the server's.
    const shrunkOnDelete = [JSON.stringify(views[latest])];
    expect(steps.map(({ step, wrong, shrunk }) => ({ step, wrong, shrunk }))).toEqual(
      steps.map(({ step }) => ({
        step,
        wrong: [],
        shrunk: step === 'delete' ? shrunkOnDelete : [],
      })),
    );
    // The payloads and events hold all the lists need: no view sends a request.
    expect(Object.fromEntries(steps.map(({ step, requests }) => [step, requests]))).toEqual({
      create: 0,
      createUsers: 0,
      delete: 0,
      'two userCreated events': 0,
    });
  });
});
