/**
 * A frontend team's first hour, in real Chromium: the example page (`e2e/page/`), served from its own
 * origin, creates users through plain fetch and through urql against the real HTTP service, lists
 * them, and shows a duplicate email beside the email field from `errors[0].extensions`. A page on an
 * origin not in CORS_ORIGINS is refused by the browser, and a cross-site form post (the request CORS
 * does not stop) is refused by CSRF prevention, as is a GET query without `apollo-require-preflight`;
 * its WebSocket (to which browsers apply no CORS) is refused by the service.
 * The `userid` counter on the page moves live (a subscription) when any client creates a user.
 * Outcomes are checked through the API as well as the DOM.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestService, type TestService } from '../test/support/service';
import { launchChromium } from './support/browser';
import { buildPage, servePage, type PageServer } from './support/page-server';

const SCREENSHOT_DIR = path.resolve(__dirname, '../test-output/e2e');

type PageClient = 'fetch' | 'urql' | 'apollo';

let browser: Browser;
let allowedSite: PageServer;
let refusedSite: PageServer;
let service: TestService;
let graphqlUrl: string;
let context: BrowserContext;

beforeAll(async () => {
  await buildPage();
  [allowedSite, refusedSite, browser] = await Promise.all([
    servePage(),
    servePage(),
    launchChromium(),
  ]);
  service = await startTestService({ env: { CORS_ORIGINS: allowedSite.origin } });
  graphqlUrl = `${service.url}/graphql`;
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await Promise.all([allowedSite?.close(), refusedSite?.close()]);
});

beforeEach(async () => {
  context = await browser.newContext();
});

afterEach(async () => {
  await context.close();
});

/** Opens the example page on `site`, pointed at the service, and waits for its first user list. */
async function openPage(site: PageServer): Promise<{ page: Page; consoleMessages: string[] }> {
  const page = await context.newPage();
  const consoleMessages: string[] = [];
  page.on('console', (message) => consoleMessages.push(message.text()));
  await page.goto(site.pageUrl(graphqlUrl));
  await page.waitForSelector('body[data-ready="true"]');
  return { page, consoleMessages };
}

/** Fills the sign-up form and submits it with the chosen client; resolves when the page has the outcome. */
async function submitSignUp(
  page: Page,
  fields: { name: string; email?: string; strategy?: string; client: PageClient },
): Promise<{ state: string; text: string }> {
  await page.fill('#name', fields.name);
  await page.fill('#email', fields.email ?? '');
  await page.selectOption('#strategy', fields.strategy ?? 'COUNTER');
  await page.click(`button[value="${fields.client}"]`);
  const status = await page.waitForSelector(
    '#status[data-state="ok"], #status[data-state="error"]',
  );
  return {
    state: (await status.getAttribute('data-state')) ?? '',
    text: (await status.textContent()) ?? '',
  };
}

async function listedUsers(
  page: Page,
): Promise<Array<{ id: string; strategy: string; text: string }>> {
  return page.$$eval('#users li', (items) =>
    items.map((item) => ({
      id: (item as HTMLElement).dataset.id ?? '',
      strategy: (item as HTMLElement).dataset.strategy ?? '',
      text: item.textContent ?? '',
    })),
  );
}

interface StoredUser {
  id: string;
  name: string;
  email: string | null;
  createdWith: string;
}

/** Every stored user, read through the API (each test file has its own database). */
async function storedUsers(): Promise<StoredUser[]> {
  const { body } = await service.graphql<{ users: { edges: Array<{ node: StoredUser }> } }>(
    '{ users(first: 100) { edges { node { id name email createdWith } } } }',
  );
  expect(body.errors).toBeUndefined();
  return body.data!.users.edges.map(({ node }) => node);
}

async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
}

test('a page on an allowed origin creates users through fetch and through urql, and lists them', async () => {
  const { page } = await openPage(allowedSite);
  const apiRequests: Array<{ method: string; accept: string }> = [];
  page.on('request', (request) => {
    if (request.url() === graphqlUrl)
      apiRequests.push({ method: request.method(), accept: request.headers().accept });
  });

  const signUps = [
    { name: 'Ada Lovelace', email: 'ada@example.test', strategy: 'COUNTER', client: 'fetch' },
    {
      name: 'Grace Hopper',
      email: 'grace@example.test',
      strategy: 'OPTIMISTIC_LOOP',
      client: 'urql',
    },
  ] as const;
  for (const signUp of signUps) {
    const outcome = await submitSignUp(page, signUp);
    expect(outcome).toEqual({
      state: 'ok',
      text: expect.stringMatching(`^Created user \\d+ with ${signUp.strategy} `),
    });
  }

  const listed = await listedUsers(page);
  expect(listed.map(({ text }) => text)).toEqual([
    expect.stringMatching(/^#\d+ Ada Lovelace <ada@example\.test> \(COUNTER\)$/),
    expect.stringMatching(/^#\d+ Grace Hopper <grace@example\.test> \(OPTIMISTIC_LOOP\)$/),
  ]);
  expect(Number(listed[1].id)).toBeGreaterThan(Number(listed[0].id));
  expect(await storedUsers()).toEqual([
    { id: listed[0].id, name: 'Ada Lovelace', email: 'ada@example.test', createdWith: 'COUNTER' },
    {
      id: listed[1].id,
      name: 'Grace Hopper',
      email: 'grace@example.test',
      createdWith: 'OPTIMISTIC_LOOP',
    },
  ]);
  // Every API call was a POST (the CORS preflight is not a page request); urql's are recognisable
  // by the Accept header it sends, so both clients really spoke to the service.
  expect(apiRequests.every(({ method }) => method === 'POST')).toBe(true);
  expect(apiRequests.some(({ accept }) => accept.includes('text/event-stream'))).toBe(true);
  expect(apiRequests.some(({ accept }) => !accept.includes('text/event-stream'))).toBe(true);
  await screenshot(page, 'signup-created-users');
});

test.each<PageClient>(['fetch', 'urql', 'apollo'])(
  'a duplicate email sent through %s is shown beside the email field with code EMAIL_TAKEN',
  async (client) => {
    const email = `taken-${client}@example.test`;
    const first = await service.graphql(
      'mutation ($email: String) { createUser(input: { name: "First", email: $email }) { user { id } } }',
      { email },
    );
    expect(first.body.errors).toBeUndefined();
    const { page } = await openPage(allowedSite);

    const outcome = await submitSignUp(page, { name: 'Second', email, client });

    expect(outcome.state).toBe('error');
    const emailError = page.locator('#email-error');
    await expect(emailError.textContent()).resolves.toMatch(/email/i);
    await expect(emailError.getAttribute('data-code')).resolves.toBe('EMAIL_TAKEN');
    await expect(page.locator('#email').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#name-error').textContent()).resolves.toBe('');
    await expect(page.locator('#name').getAttribute('aria-invalid')).resolves.toBeNull();
    const [input, error] = await Promise.all([
      page.locator('#email').boundingBox(),
      emailError.boundingBox(),
    ]);
    expect(error!.x).toBeGreaterThanOrEqual(input!.x + input!.width);
    expect(error!.y).toBeLessThan(input!.y + input!.height);
    expect(error!.y + error!.height).toBeGreaterThan(input!.y);
    expect((await storedUsers()).filter((user) => user.email === email)).toHaveLength(1);
    await screenshot(page, `signup-duplicate-email-${client}`);
  },
);

/** The operation names of the page's API requests, as they are sent. */
function recordOperations(page: Page): string[] {
  const names: string[] = [];
  page.on('request', (request) => {
    if (request.url() !== graphqlUrl || request.method() !== 'POST') return;
    const body = JSON.parse(request.postData() ?? '{}') as {
      operationName?: string;
      query?: string;
    };
    names.push(body.operationName ?? /^\s*\w+\s+(\w+)/.exec(body.query ?? '')?.[1] ?? '?');
  });
  return names;
}

async function apolloListed(page: Page): Promise<string[]> {
  return page.$$eval('#apollo-users li', (items) => items.map((item) => item.textContent ?? ''));
}

test('Apollo Client: a created user appears in the cached newest-first list without a refetch', async () => {
  await service.graphql('mutation { createUser(input: { name: "Already here" }) { user { id } } }');
  const { page } = await openPage(allowedSite);
  const operations = recordOperations(page);
  await page.waitForSelector('#apollo-users[data-ready="true"] li');
  const before = await apolloListed(page);

  const outcome = await submitSignUp(page, { name: 'Barbara Liskov', client: 'apollo' });
  expect(outcome.state).toBe('ok');
  await page.waitForFunction(
    (count) => document.querySelectorAll('#apollo-users li').length === count,
    before.length + 1,
  );

  const after = await apolloListed(page);
  expect(after[0]).toMatch(/^#\d+ Barbara Liskov \(COUNTER\)$/);
  expect(after.slice(1)).toEqual(before);
  const ids = await page.$$eval('#apollo-users li', (items) =>
    items.map((item) => Number((item as HTMLElement).dataset.id)),
  );
  expect(ids).toEqual([...ids].sort((a, b) => b - a));
  // The only request after the page had loaded was the mutation: the list came from the cache.
  expect(operations).toEqual(['CreateUser']);
  expect((await storedUsers()).map((user) => user.name)).toContain('Barbara Liskov');
  await screenshot(page, 'signup-apollo-cached-list');
});

test('Apollo Client: one valid and one invalid create in one document show the first user and the second error beside its field', async () => {
  await service.graphql(
    'mutation { createUser(input: { name: "Owner", email: "pair-taken@example.test" }) { user { id } } }',
  );
  const { page } = await openPage(allowedSite);
  const operations = recordOperations(page);
  await page.waitForSelector('#apollo-users[data-ready="true"]');

  await page.fill('#first-name', 'Frances Allen');
  await page.fill('#first-email', 'frances@example.test');
  await page.fill('#second-name', 'Copycat');
  await page.fill('#second-email', 'pair-taken@example.test');
  await page.click('#pair button[type="submit"]');
  await page.waitForSelector('#pair-status[data-state="error"]');

  const secondError = page.locator('#second-email-error');
  await expect(secondError.getAttribute('data-code')).resolves.toBe('EMAIL_TAKEN');
  await expect(secondError.textContent()).resolves.toMatch(/email/i);
  await expect(page.locator('#second-email').getAttribute('aria-invalid')).resolves.toBe('true');
  await expect(page.locator('#first-email-error').textContent()).resolves.toBe('');
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll('#apollo-users li')).some((item) =>
      item.textContent?.includes('Frances Allen'),
    ),
  );
  expect(operations).toEqual(['CreateUserPair']);
  const stored = await storedUsers();
  expect(stored.filter((user) => user.email === 'frances@example.test')).toHaveLength(1);
  expect(stored.filter((user) => user.name === 'Copycat')).toEqual([]);
  await screenshot(page, 'signup-apollo-pair');
});

test('a page on an origin not in CORS_ORIGINS is refused by the browser and creates nobody', async () => {
  const { page, consoleMessages } = await openPage(refusedSite);

  const viaFetch = await submitSignUp(page, { name: 'Refused Fetch', client: 'fetch' });
  const viaUrql = await submitSignUp(page, { name: 'Refused Urql', client: 'urql' });

  expect(viaFetch).toEqual({ state: 'error', text: 'Network error: Failed to fetch' });
  expect(viaUrql).toEqual({ state: 'error', text: 'Network error: Failed to fetch' });
  const corsRefusals = consoleMessages.filter((text) =>
    text.includes('has been blocked by CORS policy'),
  );
  expect(corsRefusals.length).toBeGreaterThanOrEqual(3); // the first list, then one per submit
  expect(corsRefusals.every((text) => text.includes(`from origin '${refusedSite.origin}'`))).toBe(
    true,
  );
  expect((await storedUsers()).filter((user) => user.name.startsWith('Refused'))).toEqual([]);
});

test('a subscription socket opens from an allowed origin and is refused from any other', async () => {
  const outcomes: string[] = [];
  for (const site of [allowedSite, refusedSite]) {
    const { page } = await openPage(site);
    // What the page's own WebSocket sees: browsers send Origin and apply no CORS to WebSockets.
    outcomes.push(
      await page.evaluate(
        (url) =>
          new Promise<string>((resolve) => {
            const socket = new WebSocket(url, 'graphql-transport-ws');
            socket.onopen = () => {
              socket.close();
              resolve('open');
            };
            socket.onclose = (event) => resolve(`closed ${event.code}`);
          }),
        graphqlUrl.replace(/^http/, 'ws'),
      ),
    );
  }
  expect(outcomes).toEqual(['open', 'closed 1006']);
});

test('from an allowed origin, a GET query passes CSRF prevention only with apollo-require-preflight', async () => {
  const { page } = await openPage(allowedSite);

  const answers = await page.evaluate(async (url) => {
    const query = `${url}?query=${encodeURIComponent('{ strategyStats { strategy } }')}`;
    const ask = async (headers: Record<string, string>) => {
      const response = await fetch(query, { headers });
      return { status: response.status, body: await response.text() };
    };
    return { plain: await ask({}), preflighted: await ask({ 'apollo-require-preflight': 'true' }) };
  }, graphqlUrl);

  expect(answers.plain.status).toBe(400);
  expect(answers.plain.body).toContain('Cross-Site Request Forgery');
  expect(answers.preflighted.status).toBe(200);
  expect(JSON.parse(answers.preflighted.body)).toEqual({
    data: { strategyStats: expect.arrayContaining([{ strategy: 'COUNTER' }]) },
    extensions: {
      cost: { usersCreated: 0, sequenceAllocations: 0, listedItems: 0, scannedValues: 0 },
    },
  });
});

test.each([
  {
    enctype: 'text/plain',
    // text/plain sends `name=value`: the classic trick to forge a JSON body from an HTML form.
    fields: {
      '{"query":"mutation { createUser(input: { name: \\"Forged text/plain\\" }) { user { id } } }","x":"':
        '"}',
    },
    name: 'Forged text/plain',
  },
  {
    enctype: 'application/x-www-form-urlencoded',
    fields: {
      query: 'mutation { createUser(input: { name: "Forged urlencoded" }) { user { id } } }',
    },
    name: 'Forged urlencoded',
  },
])(
  'a cross-site $enctype form post is refused by CSRF prevention and creates nobody',
  async ({ enctype, fields, name }) => {
    const { page } = await openPage(refusedSite);

    const [response] = await Promise.all([
      page.waitForResponse(
        (candidate) => candidate.url() === graphqlUrl && candidate.request().method() === 'POST',
      ),
      page.evaluate(
        ({ action, enctype, fields }) => {
          const form = document.createElement('form');
          Object.assign(form, { method: 'post', action, enctype });
          for (const [fieldName, value] of Object.entries(fields)) {
            const input = document.createElement('input');
            Object.assign(input, { type: 'hidden', name: fieldName, value });
            form.append(input);
          }
          document.body.append(form);
          form.submit();
        },
        { action: graphqlUrl, enctype, fields },
      ),
    ]);

    expect(response.request().headers()['content-type']).toContain(enctype);
    expect(response.status()).toBe(400);
    await expect(response.text()).resolves.toContain('Cross-Site Request Forgery');
    expect((await storedUsers()).filter((user) => user.name === name)).toEqual([]);
  },
);

test('the userid counter moves live, through a subscription, when a user is created', async () => {
  const { page } = await openPage(allowedSite);
  const counter = await page.waitForSelector('#userid-counter[data-live="true"]');
  const before = Number(await counter.getAttribute('data-value'));
  const pageRequests: string[] = [];
  page.on('request', (request) => pageRequests.push(`${request.method()} ${request.url()}`));
  // Created by another client (not the page): only the subscription can tell the page.
  const created = await service.graphql<{ createUser: { user: { id: string } } }>(
    'mutation { createUser(input: { name: "Counted" }, strategy: COUNTER) { user { id } } }',
  );
  const id = Number(created.body.data!.createUser.user.id);
  expect(id).toBeGreaterThan(before);
  await page.waitForSelector(`#userid-counter[data-value="${id}"]`);
  expect(await page.textContent('#userid-counter')).toBe(String(id));
  expect(pageRequests).toEqual([]); // no polling, no refetch: the value came over the WebSocket
  await screenshot(page, 'userid-counter-live');
});
