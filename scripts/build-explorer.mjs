// Bundles the local explorer (explorer/main.ts: GraphiQL, React) into dist/explorer/ with esbuild,
// from installed packages only, so `npm start` serves it with no network. Run by `npm run build`
// and before every `npm start`: when the bundle is newer than every input of its last build (the
// inputs esbuild listed in its metafile, this script and package-lock.json), it is current and
// nothing is bundled, so a restart with nothing changed costs no bundling (about 5 s otherwise),
// nor loading esbuild (about 0.3 s).
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'explorer');
const bundle = path.join(outdir, 'explorer.js');
const inputsFile = path.join(outdir, 'inputs.json');

const modified = async (file) => (await stat(file).catch(() => null))?.mtimeMs ?? Infinity;

async function bundleIsCurrent() {
  const built = (await stat(bundle).catch(() => null))?.mtimeMs;
  const inputs = await readFile(inputsFile, 'utf8').then(JSON.parse, () => null);
  if (built === undefined || !Array.isArray(inputs)) return false;
  const files = [...inputs, fileURLToPath(import.meta.url), path.join(root, 'package-lock.json')];
  const times = await Promise.all(files.map(modified));
  return times.every((time) => time <= built);
}

if (!(await bundleIsCurrent())) {
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: [path.join(root, 'explorer', 'main.ts')],
    outdir,
    entryNames: 'explorer',
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'chrome110',
    define: { 'process.env.NODE_ENV': '"production"' },
    loader: { '.woff2': 'dataurl', '.woff': 'dataurl', '.ttf': 'dataurl', '.svg': 'dataurl' },
    logLevel: 'warning',
    metafile: true,
  });
  const inputs = Object.keys(result.metafile.inputs).map((file) => path.resolve(root, file));
  await writeFile(inputsFile, JSON.stringify(inputs));
}
