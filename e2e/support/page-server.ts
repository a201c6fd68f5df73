/**
 * The example page (`e2e/page/`), bundled and served the way a frontend team would serve it: from its
 * own origin, separate from the API's.
 *
 * `buildPage()` bundles `e2e/page/src/main.ts` with esbuild into `e2e/page/dist/` (not committed).
 * `servePage()` starts a static server on 127.0.0.1 and a free port; every call is another origin
 * serving the same files, so one test can have an allowed origin and a refused one. The server
 * answers only the page's own files, never a path taken from the request.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';

const PAGE_DIR = path.resolve(__dirname, '../page');
const BUNDLE = path.join(PAGE_DIR, 'dist/main.js');

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: path.join(PAGE_DIR, 'index.html'), type: 'text/html; charset=utf-8' },
  '/main.js': { file: BUNDLE, type: 'text/javascript; charset=utf-8' },
};

export interface PageServer {
  /** `http://127.0.0.1:<port>`, the value to put in CORS_ORIGINS. */
  origin: string;
  /** The page's URL, configured to call the API at `graphqlUrl`. */
  pageUrl(graphqlUrl: string): string;
  close(): Promise<void>;
}

export async function buildPage(): Promise<void> {
  await build({
    entryPoints: [path.join(PAGE_DIR, 'src/main.ts')],
    outfile: BUNDLE,
    bundle: true,
    format: 'esm',
    target: 'chrome120',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
}

export async function servePage(): Promise<PageServer> {
  const server = createServer((request, response) => {
    const route = FILES[new URL(request.url ?? '/', 'http://page').pathname];
    if (request.method !== 'GET' || route === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    readFile(route.file).then(
      (body) =>
        response
          .writeHead(200, { 'content-type': route.type, 'cache-control': 'no-store' })
          .end(body),
      (error: Error) =>
        response.writeHead(500, { 'content-type': 'text/plain' }).end(error.message),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pageUrl: (graphqlUrl) => `${origin}/?api=${encodeURIComponent(graphqlUrl)}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
