import { startBenchDatabase } from './database';
import { startServiceFleet } from './service-processes';
import { runHttpLoad } from './http-load';
(async () => {
  const strategy = (process.argv[2] ?? 'COUNTER') as 'COUNTER';
  const db = await startBenchDatabase();
  const fleet = await startServiceFleet({
    instances: 1,
    mongodbUri: db.uri,
    dbName: 'prof',
    blockSize: 100,
    nodeArgs: ['--cpu-prof', '--cpu-prof-dir', '/tmp/prof-' + strategy],
  });
  try {
    const r = await runHttpLoad({
      urls: fleet.processes.map((p) => p.url),
      shape: { strategy, usersPerRequest: 1 },
      connections: 64,
      durationS: 15,
    });
    console.log(r);
  } finally {
    await fleet.stop();
    await db.stop();
  }
})();
