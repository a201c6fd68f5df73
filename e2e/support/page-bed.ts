/**
 * The bed of the tests that drive the example page: the page built and served on an origin of
 * its own, a Chromium, and a service whose CORS allows that origin, started before the file's
 * tests and stopped after them. A file calls `pageBed()` at its top level; its own `beforeAll`
 * hooks, registered after, run once the bed is up.
 */
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../../test/support/service';
import { launchChromium } from './browser';
import { buildPage, servePage, type PageServer } from './page-server';

export interface PageBed {
  browser: Browser;
  site: PageServer;
  service: TestService;
}

export function pageBed(): PageBed {
  const bed: Partial<PageBed> = {};
  beforeAll(async () => {
    await buildPage();
    [bed.site, bed.browser] = await Promise.all([servePage(), launchChromium()]);
    bed.service = await startTestService({ env: { CORS_ORIGINS: bed.site.origin } });
  });
  afterAll(async () => {
    await bed.browser?.close();
    await bed.service?.stop();
    await bed.site?.close();
  });
  return bed as PageBed;
}
