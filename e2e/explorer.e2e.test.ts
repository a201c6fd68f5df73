/**
 * The local explorer with the outside world cut off: every request of the browser to anything but
 * the service (127.0.0.1) is aborted, as on a train or in an air-gapped office. `GET /` finds Apollo's
 * CDN unreachable and opens `/explorer` (GraphiQL, bundled from the service's own dependencies by
 * `npm run build:explorer`), which introspects the schema, opens with the example `createUser`,
 * and runs it: the user is stored. `GET /schema.graphql` answers the SDL; in production neither
 * exists.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../test/support/service';
import { launchChromium } from './support/browser';

const ROOT = path.resolve(__dirname, '..');

let browser: Browser;
let service: TestService;

beforeAll(async () => {
  await new Promise<void>((resolve, reject) => {
    execFile(
      'node',
      [path.join(ROOT, 'scripts', 'build-explorer.mjs')],
      { timeout: 120_000 },
      (error) => (error === null ? resolve() : reject(error)),
    );
  });
  [browser, service] = await Promise.all([launchChromium(), startTestService()]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

test('offline, GET / falls back to the local explorer, which runs the example createUser', async () => {
  const context = await browser.newContext();
  const blocked: string[] = [];
  await context.route('**/*', async (route) => {
    const { hostname } = new URL(route.request().url());
    if (hostname === '127.0.0.1' || hostname === 'localhost') return route.continue();
    blocked.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${service.url}/`);
    await page.waitForURL(`${service.url}/explorer`, { timeout: 30_000 });
    expect(blocked.some((url) => url.includes('apollographql.com'))).toBe(true);

    // The example document is there, and the schema was introspected (the docs know the types).
    await page
      .locator('.graphiql-query-editor', {
        hasText: 'createUser(input: $input, strategy: $strategy)',
      })
      .waitFor({ timeout: 30_000 });

    const users = service.client.db(service.dbName).collection('users');
    const before = await users.countDocuments();
    await page.locator('.graphiql-execute-button').click();
    await page
      .locator('.graphiql-response', { hasText: '"createdWith": "COUNTER"' })
      .waitFor({ timeout: 30_000 });
    const response = await page.locator('.graphiql-response').innerText();
    expect(response).toContain('"name": "Ada Lovelace"');
    expect(response).toMatch(/"error": null/);
    expect(await users.countDocuments()).toBe(before + 1);
    expect(errors).toEqual([]);
    expect(blocked.filter((url) => !url.includes('apollographql.com'))).toEqual([]);
  } finally {
    await context.close();
  }
});

test('GET /schema.graphql answers the SDL outside production, 404 in production', async () => {
  const sdl = await fetch(`${service.url}/schema.graphql`, { signal: AbortSignal.timeout(15_000) });
  expect(sdl.status).toBe(200);
  expect(await sdl.text()).toMatch(/interface Node \{/);
  const production = await startTestService({ env: { NODE_ENV: 'production' } });
  try {
    for (const route of ['/schema.graphql', '/explorer', '/explorer/explorer.js']) {
      const answer = await fetch(`${production.url}${route}`, {
        signal: AbortSignal.timeout(15_000),
      });
      expect({ route, status: answer.status }).toEqual({ route, status: 404 });
    }
  } finally {
    await production.stop();
  }
});
