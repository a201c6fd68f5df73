import type { Config } from 'jest';

// `npm test`: unit, conformance (driver against the picked database) and service tests.
// The picked database is announced once by the global setup; every test file uses its own
// database name, so files can run in parallel on one server.
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  // Sources import siblings as './x.js' (nodenext); jest resolves them to the .ts files.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  maxWorkers: 2,
  testTimeout: 60_000,
};

export default config;
