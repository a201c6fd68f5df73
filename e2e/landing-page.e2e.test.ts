/**
 * What a frontend developer meets when they open the service's URL in a browser: Apollo Sandbox
 * with an example `createUser` operation ready to run, outside production (or the local explorer
 * when Apollo's CDN cannot be reached: e2e/explorer.e2e.test.ts); nothing in production.
 *
 * The Sandbox itself loads from Apollo's CDN, which this machine cannot reach, so the test reads the
 * configuration the landing page hands to it (`embeddedSandboxConfig`), in real Chromium.
 */
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../test/support/service';
import { launchChromium } from './support/browser';

interface EmbeddedSandboxConfig {
  initialState: { document?: string; variables?: Record<string, unknown> };
}

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

async function withServiceAndPage(
  env: Record<string, string>,
  run: (service: TestService, page: Page) => Promise<void>,
): Promise<void> {
  const service = await startTestService({ env });
  const context = await browser.newContext();
  try {
    await run(service, await context.newPage());
  } finally {
    await context.close();
    await service.stop();
  }
}

test('outside production, a browser GET of /graphql opens Apollo Sandbox with the example createUser operation pre-filled', async () => {
  await withServiceAndPage({}, async (service, page) => {
    // GET / leads here when Apollo's CDN answers (e2e/explorer.e2e.test.ts: to /explorer when not).
    const response = await page.goto(`${service.url}/graphql`, { waitUntil: 'domcontentloaded' });

    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${service.url}/graphql`);
    expect(await page.locator('#embeddableSandbox').count()).toBe(1);
    const sandbox = await page.evaluate(() => ({
      endpoint: (window as unknown as { initialEndpoint: string }).initialEndpoint,
      config: (window as unknown as { embeddedSandboxConfig: EmbeddedSandboxConfig })
        .embeddedSandboxConfig,
    }));
    expect(sandbox.endpoint).toBe(`${service.url}/graphql`);
    expect(sandbox.config.initialState.document).toMatch(
      /mutation CreateUser\([^)]*\) \{\s*createUser\(input: \$input, strategy: \$strategy\)/,
    );
    expect(sandbox.config.initialState.variables).toMatchObject({
      input: { name: expect.any(String) },
      strategy: 'COUNTER',
    });
  });
});

test('in production, neither GET / nor a browser GET of /graphql serves the Sandbox', async () => {
  await withServiceAndPage({ NODE_ENV: 'production' }, async (service, page) => {
    const root = await page.goto(`${service.url}/`, { waitUntil: 'domcontentloaded' });
    expect(root?.status()).toBe(404);
    expect(page.url()).toBe(`${service.url}/`);
    expect(await page.locator('#embeddableSandbox').count()).toBe(0);

    const graphql = await page.goto(`${service.url}/graphql`, { waitUntil: 'domcontentloaded' });
    expect(graphql?.status()).not.toBe(200);
    expect(await graphql?.text()).not.toContain('embeddableSandbox');
  });
});
