/**
 * Where a subscription connection may come from (src/http/cors.ts `upgradeOriginCheck`): browsers
 * apply no CORS to WebSockets, so the upgrade itself checks `Origin` against CORS_ORIGINS and the
 * service's own origin. Through the real HTTP server with `ws` as a browser would send it (an
 * `Origin` header) and as a server would (none).
 */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { CLIENT_HEADERS, startTestService, type TestService } from '../support/service';

const LISTED = 'https://app.example.com';
/** Far above any wait here on a quiet machine; a hang fails the test instead of stalling it. */
const WAIT_MS = 30_000;

let development: TestService;
let production: TestService;

beforeAll(async () => {
  [development, production] = await Promise.all([
    startTestService({ env: { CORS_ORIGINS: LISTED } }),
    startTestService({ env: { NODE_ENV: 'production' } }),
  ]);
});
afterAll(() => Promise.all([development?.stop(), production?.stop()]));

const wsUrl = (service: TestService) => `${service.url.replace(/^http/, 'ws')}/graphql`;

/** The upgrade's outcome: 'open', or the HTTP status it was refused with. */
function upgrade(service: TestService, origin?: string): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl(service), 'graphql-transport-ws', {
      ...(origin === undefined ? {} : { origin }),
      handshakeTimeout: WAIT_MS,
    });
    socket.once('open', () => {
      socket.close();
      resolve('open');
    });
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      socket.terminate();
      resolve(res.statusCode ?? 0);
    });
    socket.once('error', reject);
  });
}

test('an upgrade from an origin that is not listed is refused with 403', async () => {
  expect(await upgrade(development, 'https://evil.example')).toBe(403);
  expect(await upgrade(development, 'null')).toBe(403);
  // Listed for HTTP in one service is no pass to another.
  expect(await upgrade(production, LISTED)).toBe(403);
});

test('listed origins, the service own origin and callers without Origin connect', async () => {
  expect(await upgrade(development, LISTED)).toBe('open');
  expect(await upgrade(development, new URL(development.url).origin)).toBe('open');
  expect(await upgrade(development)).toBe('open');
  expect(await upgrade(production)).toBe('open');
});

test('the Sandbox origin may subscribe outside production only', async () => {
  const sandbox = 'https://sandbox.embed.apollographql.com';
  expect(await upgrade(development, sandbox)).toBe('open');
  expect(await upgrade(production, sandbox)).toBe(403);
});

test('a page on a listed origin subscribes and receives the counter', async () => {
  class ListedOriginSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { origin: LISTED });
    }
  }
  const client = createClient({
    url: wsUrl(development),
    webSocketImpl: ListedOriginSocket,
    connectionParams: CLIENT_HEADERS,
    retryAttempts: 0,
  });
  try {
    const first = await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no event')), WAIT_MS);
      const stop = client.subscribe(
        { query: 'subscription { sequenceChanged(name: "userid") { sequence { name } } }' },
        {
          next: (value) => {
            clearTimeout(timer);
            stop();
            resolve(value);
          },
          error: (error) => {
            clearTimeout(timer);
            reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
          },
          complete: () => undefined,
        },
      );
    });
    expect(first).toMatchObject({ data: { sequenceChanged: { sequence: { name: 'userid' } } } });
  } finally {
    await client.dispose();
  }
});
