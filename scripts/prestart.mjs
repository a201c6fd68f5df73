// What `npm start` runs first, in one process: the TypeScript build of the service and the
// stand-in package (`tsc -b tsconfig.build.json`), then the explorer bundle (build-explorer.mjs,
// which skips itself when current). tsc -b has nothing to do when no input changed, but loading
// TypeScript to find that out is most of a restart's build time; so it runs only when a source
// file, a folder of sources (a file added, removed or renamed), a tsconfig, a package.json or
// package-lock.json is newer than the last run of tsc -b that succeeded, or its output is
// missing. When that run began is kept as the modification time of dist/.build-started, so a
// file saved while tsc ran is newer and makes the next start build.
import { execFileSync } from 'node:child_process';
import { readdir, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const standin = path.join(root, 'packages', 'mongodb-standin');

/** The builds' own records: without them there is nothing built to be current. */
const RECORDS = [
  path.join(root, 'dist', '.tsbuildinfo'),
  path.join(standin, 'dist', '.tsbuildinfo'),
];
const STARTED = path.join(root, 'dist', '.build-started');
/** Folders whose files and subfolders are inputs of the build (tsconfig.build.json and its reference). */
const SOURCES = [path.join(root, 'src'), path.join(standin, 'src')];
const FILES = [
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
  path.join('packages', 'mongodb-standin', 'tsconfig.json'),
  path.join('packages', 'mongodb-standin', 'package.json'),
].map((file) => path.join(root, file));

const modified = async (file) => (await stat(file).catch(() => null))?.mtimeMs ?? Infinity;

/** The newest modification under `folder`: its own, its subfolders' and its files'. */
async function newestUnder(folder) {
  const entries = await readdir(folder, { withFileTypes: true });
  const times = await Promise.all(
    entries.map((entry) => {
      const where = path.join(folder, entry.name);
      return entry.isDirectory() ? newestUnder(where) : modified(where);
    }),
  );
  return Math.max(await modified(folder), ...times);
}

async function buildIsCurrent() {
  const records = await Promise.all(RECORDS.map(modified));
  const started = await modified(STARTED);
  if (started === Infinity || records.includes(Infinity)) return false;
  const inputs = await Promise.all([...SOURCES.map(newestUnder), ...FILES.map(modified)]);
  return inputs.every((time) => time <= started);
}

if (!(await buildIsCurrent())) {
  const began = new Date();
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  await writeFile(STARTED, '');
  await utimes(STARTED, began, began);
}
await import('./build-explorer.mjs');
