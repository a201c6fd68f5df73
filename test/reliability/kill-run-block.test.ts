/**
 * BLOCK through the kill run (./kill-run.ts), small: 2 service processes × 8 clients for a few
 * seconds, fail points on the block's `$inc` and on the inserts, one process killed with SIGKILL
 * under load and started again. Concurrent creations of a process share one insert
 * (src/users/insert-groups.ts), so faults and the kill land inside groups: no acknowledged user
 * may be lost and no id issued twice. BLOCK leaves holes (a killed process's block, the ids of a
 * failed insert), so they are counted, not refused. `npm run bench:faults -- --workload block` is
 * the same at full scale.
 *
 * On a loaded machine the run only gets slower: nothing here asserts a rate or a time.
 */
import { runKillRun, SMALL_KILL_RUN } from './kill-run';

test('BLOCK, 2 processes × 8 clients, fail points and a kill -9: no id twice, every acknowledged user stored', async () => {
  const report = await runKillRun({ ...SMALL_KILL_RUN, workload: 'block' });
  expect(report.problems).toEqual([]);
  expect(report.result).toMatchObject({ duplicates: 0, unresolved: 0 });
  expect(report.result.acknowledged).toBeGreaterThan(0);
  // Every id stored is one a process took from the counter: none above it, none twice.
  expect(report.result.highest).toBeGreaterThanOrEqual(report.result.acknowledged);
  expect(report.result.counts.emailsRefused).toBeGreaterThan(0);
  expect(report.kill.restartedAfterSeconds).not.toBeNull();
  expect(report.failPoints.reduce((n, f) => n + f.fired, 0)).toBeGreaterThan(0);
}, 240_000);
