/**
 * Test-side access to the database the global setup picked. Each test file works in its own
 * database (uniqueDbName), so files run in parallel against one server without seeing each
 * other's data. The clients and names are the stand-in package's test helpers, which its
 * conformance tests share (the package imports nothing of the service, so they live there).
 */
export {
  connectTestClient,
  testClient,
  testBackend,
  testMongoUri,
  uniqueDbName,
} from '../../packages/mongodb-standin/test/support/db';
