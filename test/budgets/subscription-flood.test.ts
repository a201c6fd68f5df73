/**
 * The subscription flood at full size, with the default bounds (`SUBSCRIPTIONS`) and budgets, in
 * production, through the real HTTP and WebSocket server:
 * - 1,150 sockets that never send `connection_init` churn from one address (each loop opens the
 *   next as soon as the server closes its socket; in a process of its own, ./flood-process.ts, as
 *   an attacker's sockets would not share the service's event loop) while a client with a token,
 *   from an address of its own, connects 15 times: all 15 are acknowledged. (A client sharing the
 *   flood's address shares its 8 awaiting places; connection-admission.test.ts holds that case,
 *   smaller.)
 * - One client opens 1,000 connections, the whole process's room: it holds its 100, the other 900
 *   are refused 1013 and cost it no budget, and another client still connects.
 * Bounded by counts, not time: each connection waits at most its own bound (sockets.ts), and the
 * flood runs only while the client connects. The figures are logged.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SUBSCRIPTIONS } from '../../src/limits';
import { servicesStoppedAfterAll, type TestService } from '../support/service';
import { connect, hangUp, type FloodCounts, type Outcome } from './sockets';

const start = servicesStoppedAfterAll();

const CLIENTS = {
  holder: { client: 'holder', token: 'holder-token-0123456789abcdefghijklmnop' },
  other: { client: 'other', token: 'other-token-0123456789abcdefghijklmnopq' },
};
const PRODUCTION = {
  NODE_ENV: 'production',
  CLIENT_TOKENS: Object.values(CLIENTS)
    .map(({ client, token }) => `${client}:${token}`)
    .join(','),
  TRUST_PROXY: '1',
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** The flood's one address, as the trusted proxy in front of the service reports it. */
const FLOOD_ADDRESS = '198.51.100.23';
const FLOOD_SOCKETS = 1_150;
/** A bound on the flood's process whatever happens, so a hang fails the test instead of stalling it. */
const FLOOD_PROCESS_LIMIT_MS = 5 * 60_000;
const ROOT = path.resolve(__dirname, '..', '..');
const TSX_LOADER = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** ./flood-process.ts against `service`: its latest counts, and its stop (the last counts). */
function floodProcess(service: TestService, loops: number, address: string) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      TSX_LOADER,
      path.join(__dirname, 'flood-process.ts'),
      service.url,
      String(loops),
      address,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let counts: FloodCounts = { opened: 0, pushedOut: 0, timedOut: 0, mostOpen: 0 };
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    if (lines.length > 0) counts = JSON.parse(lines[lines.length - 1]) as FloodCounts;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const limit = setTimeout(() => child.kill('SIGKILL'), FLOOD_PROCESS_LIMIT_MS);
  return {
    counts: () => counts,
    async stop(): Promise<FloodCounts> {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      clearTimeout(limit);
      return counts;
    },
  };
}

test(
  '1,150 silent sockets churn from one address: a token client elsewhere connects 15 of 15 times',
  async () => {
    const service = await start({ env: PRODUCTION });
    const flood = floodProcess(service, FLOOD_SOCKETS, FLOOD_ADDRESS);
    const outcomes: Array<{ outcome: Outcome; ms: number }> = [];
    let counts: FloodCounts;
    let before: FloodCounts | undefined;
    try {
      // The flood churns at its size (every loop has opened a socket, and as many were pushed
      // out) before the client comes.
      const deadline = performance.now() + FLOOD_PROCESS_LIMIT_MS;
      while (flood.counts().opened < FLOOD_SOCKETS || flood.counts().pushedOut < FLOOD_SOCKETS) {
        if (performance.now() > deadline) throw new Error('the flood never reached its size');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      before = flood.counts();
      for (let i = 0; i < 15; i += 1) {
        const sent = performance.now();
        const outcome = await connect(service, bearer(CLIENTS.other.token));
        outcomes.push({ outcome, ms: performance.now() - sent });
        await hangUp(outcome);
      }
    } finally {
      counts = await flood.stop();
    }
    const waits = outcomes.map(({ ms }) => Math.round(ms));
    console.log(
      `full-size silent flood from one address: ${JSON.stringify(counts)}; the token client's connections took ${waits.join(', ')} ms`,
    );
    expect(outcomes.filter(({ outcome }) => !outcome.acked).map(({ outcome }) => outcome)).toEqual(
      [],
    );
    // The flood went on churning while the client connected: its sockets pushed each other out.
    expect(counts.pushedOut).toBeGreaterThan(before!.pushedOut);
  },
  2 * FLOOD_PROCESS_LIMIT_MS,
);

test('a client opening the whole room of 1,000 connections holds its 100; another client connects', async () => {
  const service = await start({ env: PRODUCTION });
  const holder = bearer(CLIENTS.holder.token);
  const outcomes: Outcome[] = [];
  // 1,000 connections, 50 at a time (the room of a process: SUBSCRIPTIONS.connections).
  for (let sent = 0; sent < SUBSCRIPTIONS.connections; sent += 50) {
    outcomes.push(
      ...(await Promise.all(Array.from({ length: 50 }, () => connect(service, holder)))),
    );
  }
  const held = outcomes.filter((outcome) => outcome.acked);
  const refused = outcomes.filter((outcome) => !outcome.acked);
  try {
    expect(held).toHaveLength(SUBSCRIPTIONS.connectionsPerCaller);
    expect(new Set(refused.map((outcome) => !outcome.acked && outcome.code))).toEqual(
      new Set([1013]),
    );
    const other = await connect(service, bearer(CLIENTS.other.token));
    expect(other.acked).toBe(true);
    await hangUp(other);
    // The refused 900 cost the holder nothing: it spent one unit of its budget per held connection.
    const limits = await service.graphql<{
      viewer: { limits: { budgets: Array<{ name: string; limit: number; remaining: number }> } };
    }>(`{ viewer { limits { budgets { name limit remaining } } } }`, {}, holder);
    const connections = limits.body.data!.viewer.limits.budgets.find(
      (budget) => budget.name === 'subscriptionConnections',
    )!;
    expect(connections.remaining).toBeGreaterThanOrEqual(
      connections.limit - SUBSCRIPTIONS.connectionsPerCaller - connections.limit / 20,
    );
  } finally {
    await Promise.all(held.map(hangUp));
  }
});
