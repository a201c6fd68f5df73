/**
 * Debian's Chromium, driven by playwright-core: the e2e tests never download a browser.
 *
 * Each launch starts a fresh headless browser with its own temporary profile, so no state (cookies,
 * cache, CORS preflight cache) carries over between test files. `.ci/apt-chromium.sh` installs it.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `${CHROMIUM_PATH} is missing: run .ci/apt-chromium.sh (installs Debian's chromium).`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 30_000,
  });
}
