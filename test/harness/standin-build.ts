/**
 * Builds the stand-in package (`tsc -b packages/mongodb-standin`, incremental: about a second when
 * nothing changed) when imported. jest's global setup runs in plain Node, which loads the package
 * through its entry, the compiled `dist/index.js`, not through jest's transform; without this a
 * fresh clone would have no `dist/`, and an edited stand-in would be tested as last built.
 * Imported first by global-setup.ts, before anything that imports the package.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

execFileSync(
  process.execPath,
  [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/mongodb-standin'],
  { cwd: ROOT, stdio: 'inherit' },
);
