/**
 * A fresh, empty data directory for every test of a file whose stand-ins journal to disk, removed
 * once the test ends: `const dataDir = freshDataDir('standin-durability-')` at the top of the
 * file, `dataDir.path` inside a test (reading it outside one throws, so no test shares another's).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export function freshDataDir(prefix: string): { readonly path: string } {
  let current: string | undefined;
  beforeEach(async () => {
    current = await mkdtemp(path.join(os.tmpdir(), prefix));
  });
  afterEach(async () => {
    if (current !== undefined) await rm(current, { recursive: true, force: true });
    current = undefined;
  });
  return {
    get path(): string {
      if (current === undefined)
        throw new Error('freshDataDir: its path exists only inside a test');
      return current;
    },
  };
}
