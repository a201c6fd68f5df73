/**
 * Issue 22's proof of no holes, small: 2 service processes × 8 clients for a few seconds, fail
 * points on every command that writes, one process killed with SIGKILL under load and started
 * again (./kill-run.ts). TRANSACTION must end with stored ids exactly 1..N and every acknowledged
 * user stored; a gapless sequence with confirmations, releases and expiries with its confirmed
 * values exactly 1..seq, none acknowledged twice; a gapless yearly sequence whose database clock
 * passes New Year's Eve half a second before the kill, with each year's confirmed values exactly
 * 1..its top. `npm run bench:faults` is the same at issue 22's scale (2 × 32 clients, 30 s).
 *
 * On a loaded machine the run only gets slower: the clients retry with bounded attempts and
 * generous request bounds, and nothing here asserts a rate or a time.
 */
import { runKillRun, SMALL_KILL_RUN as SMALL } from './kill-run';

test('TRANSACTION, 2 processes × 8 clients, fail points and a kill -9: ids exactly 1..N, every acknowledged user stored', async () => {
  const report = await runKillRun({ ...SMALL, workload: 'transaction' });
  expect(report.problems).toEqual([]);
  expect(report.result).toMatchObject({ holes: 0, duplicates: 0, unresolved: 0 });
  expect(report.result.acknowledged).toBeGreaterThan(0);
  // Every acknowledged user is stored and nothing else numbered: N is the acknowledged count.
  expect(report.result.highest).toBe(report.result.acknowledged);
  expect(report.result.counts.emailsRefused).toBeGreaterThan(0);
  expect(report.kill.restartedAfterSeconds).not.toBeNull();
  expect(report.failPoints.reduce((n, f) => n + f.fired, 0)).toBeGreaterThan(0);
  // Fail points made transactions run again, and strategyStats counted it.
  expect(report.transactionStats.transactionRetries).toBeGreaterThan(0);
}, 240_000);

test('a gapless sequence, 2 processes × 8 clients, fail points and a kill -9: confirmed values exactly 1..seq, none twice', async () => {
  const report = await runKillRun({ ...SMALL, workload: 'gapless' });
  expect(report.problems).toEqual([]);
  expect(report.result).toMatchObject({ holes: 0, duplicates: 0, unresolved: 0 });
  const { counts } = report.result;
  expect(counts.confirmed).toBeGreaterThan(0);
  expect(counts.released).toBeGreaterThan(0);
  expect(counts.abandoned).toBeGreaterThan(0);
  // Abandoned and released values were handed out again: seq is every confirmed value, no more.
  expect(report.result.highest).toBeGreaterThanOrEqual(report.result.acknowledged);
  expect(report.failPoints.reduce((n, f) => n + f.fired, 0)).toBeGreaterThan(0);
}, 240_000);

test('a gapless yearly sequence across New Year, 2 processes × 8 clients, fail points and a kill -9: each year exactly 1..top, none twice', async () => {
  const report = await runKillRun({ ...SMALL, workload: 'gaplessYearly' });
  expect(report.problems).toEqual([]);
  expect(report.result).toMatchObject({ holes: 0, duplicates: 0, unresolved: 0 });
  const { counts } = report.result;
  // Both years were numbered, each from 1: the run crossed the boundary.
  expect(counts['top 2026']).toBeGreaterThan(0);
  expect(counts['top 2027']).toBeGreaterThan(0);
  expect(counts.confirmed).toBeGreaterThan(0);
  expect(counts.released + counts.abandoned).toBeGreaterThan(0);
  expect(report.result.highest).toBeGreaterThanOrEqual(report.result.acknowledged);
  expect(report.failPoints.reduce((n, f) => n + f.fired, 0)).toBeGreaterThan(0);
}, 240_000);
