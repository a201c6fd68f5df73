/**
 * Raw `ws` sockets speaking graphql-transport-ws to the real service, for the tests of connection
 * admission (src/budgets/admission.ts): one connection that says who it is, and a flood of sockets
 * that never do.
 */
import WebSocket from 'ws';
import { CLIENT_HEADERS, type TestService } from '../support/service';

export const PROTOCOL = 'graphql-transport-ws';
/** Far above any wait here on a quiet machine; a hang fails the test instead of stalling it. */
const WAIT_MS = 30_000;

export const wsUrl = (service: TestService) => `${service.url.replace(/^http/, 'ws')}/graphql`;

export type Outcome =
  { acked: true; socket: WebSocket } | { acked: false; code: number; reason: string };

/** Opens a socket, sends `connection_init` with `headers`, and waits for the ack or the close. */
export function connect(
  service: TestService,
  headers: Record<string, string> = CLIENT_HEADERS,
  upgradeHeaders: Record<string, string> = {},
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl(service), PROTOCOL, { headers: upgradeHeaders });
    const timer = setTimeout(() => reject(new Error('no ack or close within the wait')), WAIT_MS);
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: headers })),
    );
    socket.on('message', (data) => {
      if (JSON.parse(String(data)).type !== 'connection_ack') return;
      clearTimeout(timer);
      resolve({ acked: true, socket });
    });
    socket.on('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ acked: false, code, reason: String(reason) });
    });
    socket.on('error', () => undefined); // the close that follows says what happened
  });
}

/** Closes an acknowledged connection and waits until it is closed. */
export async function hangUp(outcome: Outcome): Promise<void> {
  if (!outcome.acked) return;
  const closed = new Promise((resolve) => outcome.socket.once('close', resolve));
  outcome.socket.close(1000);
  await closed;
}

/** What a flood's sockets met: opened, closed by the server (1013 pushed out, 4408 timed out). */
export interface FloodCounts {
  opened: number;
  pushedOut: number;
  timedOut: number;
  /** The most sockets open at once, as the flood saw them. */
  mostOpen: number;
}

/**
 * `loops` loops, each opening a socket that never sends `connection_init`, holding it until the
 * server closes it and opening the next, until `stop()` (which ends the sockets still open);
 * counts what the server did with them.
 */
export function silentFlood(
  service: TestService,
  loops: number,
  upgradeHeaders: (loop: number) => Record<string, string> = () => ({}),
): { counts: FloodCounts; stop(): Promise<void> } {
  const counts: FloodCounts = { opened: 0, pushedOut: 0, timedOut: 0, mostOpen: 0 };
  const sockets = new Set<WebSocket>();
  let openNow = 0;
  let running = true;
  const loop = async (index: number) => {
    while (running) {
      await new Promise<void>((resolve) => {
        const socket = new WebSocket(wsUrl(service), PROTOCOL, { headers: upgradeHeaders(index) });
        sockets.add(socket);
        let opened = false;
        socket.on('open', () => {
          opened = true;
          counts.opened += 1;
          openNow += 1;
          counts.mostOpen = Math.max(counts.mostOpen, openNow);
        });
        socket.on('error', () => undefined);
        socket.on('close', (code) => {
          sockets.delete(socket);
          if (opened) openNow -= 1;
          if (code === 1013) counts.pushedOut += 1;
          if (code === 4408) counts.timedOut += 1;
          resolve();
        });
      });
    }
  };
  const done = Promise.all(Array.from({ length: loops }, (_, i) => loop(i)));
  return {
    counts,
    stop: async () => {
      running = false;
      for (const socket of sockets) socket.terminate();
      await done;
    },
  };
}
