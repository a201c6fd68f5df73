/**
 * The tail-floor fixture (bench/tail-floor-service.ts) speaks to the bench as a service process
 * does: loaded by the bench's own HTTP load, every answer reads as a success, and `/metrics`
 * counts the creations under the strategy the requests named.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { runHttpLoad } from '../../bench/http-load';
import { freePort } from '../support/ports';

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 100; tries += 1) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the fixture never became ready');
}

test('loaded like a service, it answers successes and counts them by strategy', async () => {
  const port = await freePort();
  const fixture = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, '../../bench/tail-floor-service.ts')],
    { env: { ...process.env, PORT: String(port), TAIL_FLOOR_CPU_MS: '0.05' }, stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(async () => (await fetch(`${url}/ready`)).ok);
    const load = await runHttpLoad({
      urls: [url],
      shape: { strategy: 'BLOCK', usersPerRequest: 1 },
      connections: 8,
      durationS: 1,
      headers: {},
    });
    expect(load).toMatchObject({ failedRequests: 0, retryableRefusals: 0 });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const counted = Number(/users_created_total\{strategy="BLOCK"\} (\d+)/.exec(metrics)?.[1]);
    expect(counted).toBeGreaterThan(8);
    expect(metrics).not.toContain('strategy="COUNTER"');
  } finally {
    const exited = new Promise((resolve) => fixture.once('exit', resolve));
    fixture.kill('SIGTERM');
    await exited;
  }
});
