// Bundles the local explorer (explorer/main.ts: GraphiQL, React) into dist/explorer/ with esbuild,
// from installed packages only, so `npm start` serves it with no network. Run by `npm run build`.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await build({
  entryPoints: [path.join(root, 'explorer', 'main.ts')],
  outdir: path.join(root, 'dist', 'explorer'),
  entryNames: 'explorer',
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'chrome110',
  define: { 'process.env.NODE_ENV': '"production"' },
  loader: { '.woff2': 'dataurl', '.woff': 'dataurl', '.ttf': 'dataurl', '.svg': 'dataurl' },
  logLevel: 'warning',
});
