/**
 * Sockets that never say who they are: a flood of them against the real service, for the tests of
 * connection admission (src/budgets/admission.ts). It imports nothing of the service, so a process
 * of its own can run it (./flood-process.ts), away from the event loop of the service it floods.
 */
import WebSocket from 'ws';

export const PROTOCOL = 'graphql-transport-ws';

/** The WebSocket URL of a service at `url` (http://host:port). */
export const wsUrl = (service: { url: string }) => `${service.url.replace(/^http/, 'ws')}/graphql`;

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
  service: { url: string },
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
