/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a server that must be started (and
 * restarted) on a known port: the outage test's database, the benchmark's service processes.
 * Another process could take it in between; on a test machine that race is rare enough to accept.
 */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port was assigned')),
      );
    });
  });
}
