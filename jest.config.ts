import type { Config } from 'jest';

// `npm test`: the service's tests and the stand-in package's (its unit tests, and its conformance
// tests: the driver against the picked database).
// The picked database is announced once by the global setup; every test file uses its own
// database name, so files can run in parallel on one server. Fail points are the exception: the
// stand-in keeps one `failCommand` setting per appName, but a real mongod keeps one in all, so
// against a real MongoDB (MONGODB_URI, or a forced memory-server) the files run one at a time.
const realMongod =
  process.env.TEST_MONGO === 'memory-server' ||
  (process.env.MONGODB_URI !== undefined && process.env.TEST_MONGO !== 'standin');
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/packages/mongodb-standin/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  // A dynamic import() is ESM under `nodenext`, so it names './x.js' (tsc insists); jest resolves
  // that to the .ts file. Static imports name no extension (eslint.config.mjs).
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  maxWorkers: realMongod ? 1 : 2,
  testTimeout: 60_000,
};

export default config;
