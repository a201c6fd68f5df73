/**
 * A burst of new connections (a sign-up campaign, a batch job's workers starting, `npm run bench`
 * opening 512) is queued by the kernel in full while the event loop is busy, up to
 * `LISTEN_BACKLOG` (src/limits.ts): none is dropped to wait out TCP's one-second SYN retry.
 *
 * The test opens the sockets and then holds the event loop, as a busy service's would be, so the
 * kernel alone answers their handshakes; then it reads the kernel's own table (/proc/net/tcp):
 * a socket still in SYN-SENT had its SYN dropped by a full accept queue.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { LISTEN_BACKLOG } from '../../src/limits';
import { servicesStoppedAfterAll } from '../support/service';

const start = servicesStoppedAfterAll();

/** SYN-SENT in /proc/net/tcp's `st` column (include/net/tcp_states.h). */
const SYN_SENT = '02';

/** This process's sockets waiting for the handshake with `port` on 127.0.0.1. */
function waitingForHandshake(port: number): number {
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[2] === remote && fields[3] === SYN_SENT).length;
}

function holdEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // the service's loop is busy: it accepts nothing until this returns
  }
}

test('a burst of 1,000 connections opened while the event loop is busy is queued in full', async () => {
  expect(LISTEN_BACKLOG).toBeGreaterThanOrEqual(1_000);
  const service = await start();
  const port = Number(new URL(service.url).port);
  const sockets: Socket[] = [];
  try {
    for (let i = 0; i < 1_000; i += 1) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      sockets.push(socket);
    }
    // net.connect sends its SYN on the next tick: let them go out, then hold the loop.
    await new Promise((resolve) => setImmediate(resolve));
    holdEventLoop(500);
    expect(waitingForHandshake(port)).toBe(0);
    await Promise.all(
      sockets.map(
        (socket) =>
          new Promise((resolve, reject) => {
            if (!socket.connecting) resolve(undefined);
            socket.once('connect', resolve).once('error', reject);
          }),
      ),
    );
  } finally {
    for (const socket of sockets) socket.destroy();
  }
});
