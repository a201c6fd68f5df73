/**
 * The example page's cache-fed lists in real Chromium, with WebSockets blocked (a page script that
 * makes every `new WebSocket` fail, as a proxy that drops upgrades does): the "latest sign-ups"
 * list receives users created by another client through `userCreated` over Server-Sent Events and
 * shows them with the right total, rendered only from Apollo's cache (no request for the list
 * after its first); the paged table's "Next page" shows the server's page 2.
 */
import type { Page } from 'playwright-core';
import { ADMIN_HEADERS } from '../test/support/service';
import { pageBed } from './support/page-bed';

const bed = pageBed();

beforeAll(async () => {
  const seeded = await bed.service.graphql(
    'mutation S($inputs: [CreateUserInput!]!) { createUsers(inputs: $inputs) { created } }',
    { inputs: Array.from({ length: 7 }, (_, i) => ({ name: `seed ${i + 1}` })) },
    ADMIN_HEADERS,
  );
  expect(seeded.body.data.createUsers.created).toBe(7);
});

/** Opens the page with WebSockets blocked; records the GraphQL requests it sends over HTTP. */
async function openWithoutWebSockets(): Promise<{ page: Page; graphqlPosts: string[] }> {
  const context = await bed.browser.newContext();
  await context.addInitScript(() => {
    // A network that breaks WebSockets: every attempt fails at once.
    window.WebSocket = class {
      constructor() {
        throw new DOMException('WebSockets are blocked here', 'SecurityError');
      }
    } as unknown as typeof WebSocket;
  });
  const page = await context.newPage();
  const graphqlPosts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/graphql') {
      graphqlPosts.push(String(request.postDataJSON()?.operationName ?? ''));
    }
  });
  await page.goto(bed.site.pageUrl(`${bed.service.url}/graphql`));
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForSelector('#latest[data-ready="true"]');
  await page.waitForSelector('#users-table[data-ready="true"]');
  return { page, graphqlPosts };
}

const serverTotal = async () =>
  (await bed.service.graphql('{ users(first: 1) { totalCount } }', {}, ADMIN_HEADERS)).body.data
    .users.totalCount as number;

const shownIds = (page: Page, list: string) =>
  page.$$eval(`${list} > li`, (items) => items.map((item) => (item as HTMLElement).dataset.id));

test('with WebSockets blocked, the latest sign-ups receive userCreated over HTTP, from the cache', async () => {
  const { page, graphqlPosts } = await openWithoutWebSockets();
  const latestRequests = () => graphqlPosts.filter((name) => name === 'LatestSignUps').length;
  expect(latestRequests()).toBe(1);

  let created = '';
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const answer = await bed.service.graphql(
      'mutation C($name: String!) { createUser(input: { name: $name }) { user { id } } }',
      { name: `elsewhere ${attempt}` },
      ADMIN_HEADERS,
    );
    created = answer.body.data.createUser.user.id;
    const shown = await page
      .waitForSelector(`#latest > li[data-id="${created}"]`, { timeout: 500 })
      .then(() => true)
      .catch(() => false);
    if (shown) break;
  }
  await page.waitForSelector(`#latest > li[data-id="${created}"]`, { timeout: 10_000 });
  // Newest first, five of them, and the total the server has.
  const ids = await shownIds(page, '#latest');
  expect(ids[0]).toBe(created);
  expect(ids).toHaveLength(5);
  await page.waitForFunction(
    (total) =>
      document.querySelector('#latest-total')?.getAttribute('data-value') === String(total),
    await serverTotal(),
  );
  // Fed by the event, not by a refetch.
  expect(latestRequests()).toBe(1);
  // WebSockets were really blocked: the counter's graphql-ws subscription never went live.
  expect(await page.getAttribute('#userid-counter', 'data-live')).not.toBe('true');
});

test('the paged table shows the server page 2 after "Next page"', async () => {
  const { page } = await openWithoutWebSockets();
  const server = (
    await bed.service.graphql('{ users(first: 5) { pageInfo { endCursor } } }', {}, ADMIN_HEADERS)
  ).body.data.users.pageInfo.endCursor as string;
  const page2 = (
    await bed.service.graphql(
      'query P($after: String) { users(first: 5, after: $after) { edges { node { id } } } }',
      { after: server },
      ADMIN_HEADERS,
    )
  ).body.data.users.edges.map((edge: { node: { id: string } }) => edge.node.id);
  await page.click('#next-page');
  await page.waitForFunction(() => document.querySelector('#table-page')?.textContent === '2');
  await page.waitForSelector('#users-table[data-ready="true"]');
  expect(await shownIds(page, '#users-table')).toEqual(page2);
});
