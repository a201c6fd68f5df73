/**
 * Outside production, the ways into the API from a browser that need no network beyond the service:
 * - `GET /explorer`: the local explorer, GraphiQL bundled from the service's own npm dependencies
 *   at build time (scripts/build-explorer.mjs writes dist/explorer/), with the example document;
 *   its script and styles at `/explorer/explorer.js` and `/explorer/explorer.css`;
 * - `GET /`: a front door that opens Apollo Sandbox (`/graphql`) when Apollo's CDN answers, and the
 *   local explorer when it does not (offline, air-gapped, blocked) or takes too long;
 * - `GET /schema.graphql`: the schema as SDL, for codegen and editors.
 * Only these fixed files are served (never a path taken from the request). In production none of
 * them exists (404), like the Sandbox.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { EXAMPLE_OPERATION, EXAMPLE_VARIABLES, loadTypeDefs } from '../graphql/index';

/** Where the build puts the bundle: the same two levels up from `src/http` and `dist/http`. */
const BUNDLE_DIR = path.resolve(__dirname, '..', '..', 'dist', 'explorer');

/** The script Apollo's embedded Sandbox loads (what the front door checks it can reach). */
const SANDBOX_SCRIPT =
  'https://embeddable-sandbox.cdn.apollographql.com/_latest/embeddable-sandbox.umd.production.min.js';

/** How long the front door waits for Apollo's CDN before it opens the local explorer. */
const SANDBOX_WAIT_MS = 4_000;

const ASSETS: Record<string, { file: string; type: string }> = {
  '/explorer/explorer.js': {
    file: path.join(BUNDLE_DIR, 'explorer.js'),
    type: 'text/javascript; charset=utf-8',
  },
  '/explorer/explorer.css': {
    file: path.join(BUNDLE_DIR, 'explorer.css'),
    type: 'text/css; charset=utf-8',
  },
};

/** JSON that is safe inside a `<script>` element (no `</script>`, no `<!--`). */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

const EXPLORER_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>sequential-ids explorer</title>
<link rel="stylesheet" href="/explorer/explorer.css">
<style>html, body, #explorer { height: 100%; margin: 0; }</style>
</head>
<body>
<div id="explorer"></div>
<script type="application/json" id="explorer-config">${scriptJson({
  endpoint: '/graphql',
  document: `# Headers: add {"Authorization": "Bearer <token>"} for client or admin fields;
# without one, outside production, you act as the client "anonymous".
${EXAMPLE_OPERATION}`,
  variables: EXAMPLE_VARIABLES,
  headers: {},
})}</script>
<script src="/explorer/explorer.js"></script>
</body>
</html>
`;

const FRONT_DOOR = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>sequential-ids</title>
</head>
<body>
<p>Opening <a href="/graphql">Apollo Sandbox</a>; if Apollo's CDN cannot be reached, the
<a href="/explorer">local explorer</a> opens instead.</p>
<script>
  var settled = false;
  function open(path) { if (!settled) { settled = true; location.replace(path); } }
  setTimeout(function () { open('/explorer'); }, ${SANDBOX_WAIT_MS});
</script>
<script src="${SANDBOX_SCRIPT}" async onload="open('/graphql')" onerror="open('/explorer')"></script>
</body>
</html>
`;

function send(res: ServerResponse, type: string, body: string | Buffer): void {
  res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

/**
 * Answers `path` when it is one of the explorer's routes and returns true; false otherwise. A
 * bundle that was never built is a 503 that says how to build it.
 */
export async function servedExplorer(pathname: string, res: ServerResponse): Promise<boolean> {
  if (pathname === '/') send(res, 'text/html; charset=utf-8', FRONT_DOOR);
  else if (pathname === '/explorer') send(res, 'text/html; charset=utf-8', EXPLORER_PAGE);
  else if (pathname === '/schema.graphql') send(res, 'text/plain; charset=utf-8', loadTypeDefs());
  else {
    const asset = ASSETS[pathname];
    if (asset === undefined) return false;
    try {
      send(res, asset.type, await readFile(asset.file));
    } catch {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('The explorer is not built: run `npm run build` (it bundles GraphiQL with esbuild).');
    }
  }
  return true;
}
