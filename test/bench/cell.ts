/** A service cell of the bench's report with every figure set, for tests to vary. */
import type { CellResult } from '../../bench/report';

export const cell = (
  strategy: string,
  concurrency: number,
  extra: Partial<CellResult> = {},
): CellResult => ({
  path: 'service',
  label: strategy,
  strategy,
  concurrency,
  instances: 1,
  durationS: 10,
  users: 10_000,
  usersPerSecond: 1_000,
  p50Ms: 5,
  p99Ms: 20,
  commandsPerUser: 2,
  duplicateKeyRetriesPerUser: 0,
  transactionRetriesPerUser: 0,
  writeConflictsPerUser: 0,
  failedRequests: 0,
  retryableRefusals: 0,
  cpuMsPerUser: { service: 0.5, database: 0.25, client: null },
  peakRssMb: 120,
  ...extra,
});
