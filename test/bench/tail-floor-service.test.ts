/**
 * The tail-floor fixture (bench/tail-floor-service.ts) speaks to the bench as a service process
 * does: started by the bench's own fleet launcher and loaded by its own HTTP load, every answer
 * reads as a success, and `/metrics` counts the creations under the strategy the requests named.
 */
import { join } from 'node:path';
import { runHttpLoad } from '../../bench/http-load';
import { metricValue, startServiceFleet } from '../../bench/service-processes';

test('loaded like a service, it answers successes and counts them by strategy', async () => {
  const fleet = await startServiceFleet({
    instances: 1,
    // The fixture has no database: what the launcher passes for one goes unread.
    mongodbUri: 'mongodb://unused',
    dbName: 'unused',
    blockSize: 1,
    blockSizeMax: 1,
    nodeArgs: ['--import', 'tsx'],
    entry: join(__dirname, '../../bench/tail-floor-service.ts'),
    env: { TAIL_FLOOR_CPU_MS: '0.05' },
  });
  try {
    const load = await runHttpLoad({
      urls: fleet.processes.map((p) => p.url),
      shape: { strategy: 'BLOCK', usersPerRequest: 1 },
      connections: 8,
      durationS: 1,
      headers: fleet.headers,
    });
    expect(load).toMatchObject({ failedRequests: 0, retryableRefusals: 0 });
    const metrics = await fleet.metrics();
    expect(metricValue(metrics, 'sequential_ids_users_created_total', 'BLOCK')).toBeGreaterThan(8);
    expect(metricValue(metrics, 'sequential_ids_users_created_total', 'COUNTER')).toBe(0);
  } finally {
    await fleet.stop();
  }
});
