/**
 * The outage: the database stops while clients are creating users, and comes back.
 *
 * A dedicated stand-in on a fixed free port (this file only: stopping the shared database would
 * break every other file) serves one service instance, with a short database timeout so the
 * outage is felt quickly. Clients keep sending creations of every strategy through all three
 * phases (up, down, back up). Promises checked:
 * - every response arrives within the service's request timeout plus a margin: success or
 *   SERVICE_UNAVAILABLE (ID_CONTENTION only for the optimistic loop), never a 500, never a hang,
 *   never a refused connection (the process did not crash);
 * - while the database is down, `/ready` answers 503 and `/health` 200;
 * - once a stand-in listens on the same port again, `/ready` returns to 200 and every strategy
 *   creates users again, without restarting the service.
 * The stand-in keeps its data in memory, so the restarted one is empty: nothing is asserted about
 * the users created before the outage, only that the service serves again and that ids issued after
 * it are distinct and replayed per idempotency key.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startStandin } from 'mongodb-standin';
import { startTestService, type TestService } from '../support/service';
import { createUser, sendHttp, type Strategy } from './client';
import { freePort } from '../support/ports';
import { ID_STRATEGIES } from '../../src/strategies';

const DB_TIMEOUT_MS = 1_500;
const REQUEST_TIMEOUT_MS = 4_000;
/** Scheduling slack on a busy 2-core machine; the contract is REQUEST_TIMEOUT_MS. */
const ANSWER_BOUND_MS = REQUEST_TIMEOUT_MS + 3_000;
const CLIENTS = 12;
const STRATEGIES: readonly Strategy[] = ID_STRATEGIES;
const PROBE_INTERVAL_MS = 100;
const PROBE_LIMIT_MS = 30_000;

type Phase = 'up' | 'down' | 'back';

interface Answer {
  phase: Phase;
  strategy: Strategy;
  status: number;
  code: string | null;
  userId: string | null;
  elapsedMs: number;
}

/** Polls `path` until it answers `status`; returns how long that took. */
async function waitForStatus(service: TestService, path: string, status: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < PROBE_LIMIT_MS) {
    const response = await sendHttp(`${service.url}${path}`, { timeoutMs: ANSWER_BOUND_MS });
    if (response.status === status) return performance.now() - started;
    await sleep(PROBE_INTERVAL_MS);
  }
  throw new Error(`${path} did not answer ${status} within ${PROBE_LIMIT_MS} ms`);
}

describe('outage: the database stops during load and comes back', () => {
  test('the service answers within its timeout throughout and serves again without a restart', async () => {
    const port = await freePort();
    const uri = `mongodb://127.0.0.1:${port}`;
    let standin = await startStandin({ port });
    const service = await startTestService({
      mongodbUri: uri,
      // Errors only (silent while the test passes): an answer it refuses as a 500 or an
      // INTERNAL_SERVER_ERROR then shows its cause, with the stack, in the test's output.
      env: {
        DB_TIMEOUT_MS: String(DB_TIMEOUT_MS),
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        LOG_LEVEL: 'error',
      },
    });
    const answers: Answer[] = [];
    const failures: string[] = [];
    const healthDuringOutage: number[] = [];
    let phase: Phase = 'up';
    let loadRunning = true;

    async function client(index: number): Promise<void> {
      for (let n = 0; loadRunning; n += 1) {
        const strategy = STRATEGIES[(index + n) % STRATEGIES.length];
        const sentIn = phase;
        try {
          const result = await createUser(
            service.url,
            { name: `outage ${index}.${n}`, idempotencyKey: `outage-${randomUUID()}` },
            strategy,
            { timeoutMs: ANSWER_BOUND_MS },
          );
          const item = result.items[0];
          answers.push({
            phase: sentIn,
            strategy,
            status: result.http.status,
            code: item.code,
            userId: item.user?.id ?? null,
            elapsedMs: result.http.elapsedMs,
          });
        } catch (err) {
          failures.push(`${sentIn} ${strategy}: ${String(err)}`);
        }
      }
    }

    try {
      const load = Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
      await sleep(1_500);

      phase = 'down';
      await standin.stop();
      const detectedMs = await waitForStatus(service, '/ready', 503);
      for (let probe = 0; probe < 20; probe += 1) {
        healthDuringOutage.push((await sendHttp(`${service.url}/health`)).status);
        await sleep(PROBE_INTERVAL_MS);
      }
      // The outage lasts until a creation sent during it has been answered (on a loaded machine
      // the probes above can end before any has): bounded, and failing the test if none comes.
      const outageStarted = performance.now();
      while (!answers.some((a) => a.phase === 'down')) {
        if (performance.now() - outageStarted > PROBE_LIMIT_MS) {
          throw new Error(
            `no creation sent during the outage was answered in ${PROBE_LIMIT_MS} ms`,
          );
        }
        await sleep(PROBE_INTERVAL_MS);
      }

      standin = await startStandin({ port });
      phase = 'back';
      const recoveredMs = await waitForStatus(service, '/ready', 200);
      await sleep(1_500);
      loadRunning = false;
      await load;

      // Every strategy works again, and a retry with the same key replays the same user.
      for (const strategy of STRATEGIES) {
        const input = { name: `after ${strategy}`, idempotencyKey: `after-${randomUUID()}` };
        const first = await createUser(service.url, input, strategy);
        const retry = await createUser(service.url, input, strategy);
        expect({ strategy, code: first.items[0].code }).toEqual({ strategy, code: null });
        expect(retry.items[0]).toMatchObject({ replayed: true, user: first.items[0].user });
      }

      const byPhase = (p: Phase) => answers.filter((a) => a.phase === p);
      const slowest = Math.max(...answers.map((a) => a.elapsedMs));
      console.log(
        [
          `outage: ${answers.length} answers (${byPhase('up').length} up, ${byPhase('down').length} down, ${byPhase('back').length} back)`,
          `  /ready 503 after ${detectedMs.toFixed(0)} ms, 200 again ${recoveredMs.toFixed(0)} ms after the restart; slowest answer ${slowest.toFixed(0)} ms`,
          `  during the outage: ${byPhase('down').filter((a) => a.code === null).length} created, ${byPhase('down').filter((a) => a.code === 'SERVICE_UNAVAILABLE').length} SERVICE_UNAVAILABLE`,
        ].join('\n'),
      );

      expect(failures).toEqual([]);
      expect(healthDuringOutage.every((status) => status === 200)).toBe(true);
      const unclean = answers.filter(
        (a) =>
          a.elapsedMs >= ANSWER_BOUND_MS ||
          (a.status >= 500 && !(a.status === 503 && a.code === 'SERVICE_UNAVAILABLE')) ||
          (a.code !== null &&
            a.code !== 'SERVICE_UNAVAILABLE' &&
            !(a.code === 'ID_CONTENTION' && a.strategy === 'OPTIMISTIC_LOOP')),
      );
      expect(unclean).toEqual([]);
      expect(byPhase('up').filter((a) => a.code === null).length).toBeGreaterThan(0);
      expect(byPhase('down').some((a) => a.code === 'SERVICE_UNAVAILABLE')).toBe(true);
      const createdAfter = byPhase('back').filter((a) => a.code === null);
      expect(new Set(createdAfter.map((a) => a.strategy))).toEqual(new Set(STRATEGIES));
      expect(new Set(createdAfter.map((a) => a.userId)).size).toBe(createdAfter.length);
    } finally {
      loadRunning = false;
      await service.stop();
      await standin.stop();
    }
  }, 120_000);
});
