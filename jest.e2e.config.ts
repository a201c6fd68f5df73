import type { Config } from 'jest';
import base from './jest.config';

// `npm run test:e2e`: the browser end-to-end tests (Debian's Chromium through playwright-core).
// Same transform and the same global setup/teardown as `npm test`, so the database is the one the
// harness picks. One worker: each test file drives a whole browser, and the machine has two cores.
const config: Config = {
  ...base,
  roots: ['<rootDir>/e2e'],
  testMatch: ['**/*.e2e.test.ts'],
  maxWorkers: 1,
  testTimeout: 120_000,
};

export default config;
