/**
 * Raw `ws` sockets speaking graphql-transport-ws to the real service, for the tests of connection
 * admission (src/budgets/admission.ts): one connection that says who it is (and, from
 * ./silent-flood.ts, a flood of sockets that never do).
 */
import WebSocket from 'ws';
import { CLIENT_HEADERS, type TestService } from '../support/service';
import { PROTOCOL, wsUrl } from './silent-flood';

export { PROTOCOL, silentFlood, wsUrl, type FloodCounts } from './silent-flood';

/** Far above any wait here on a quiet machine; a hang fails the test instead of stalling it. */
const WAIT_MS = 30_000;

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
