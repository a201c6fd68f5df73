/**
 * A really small filesystem for the full-disk tests: a tmpfs mounted on a fresh directory and
 * grown in place (`mount -o remount,size=`), so the stand-in meets the kernel's own ENOSPC and
 * short writes, not a simulation. Mounting needs root (CAP_SYS_ADMIN); `canMountTmpfs` says
 * whether this process may, and the tests that need it are reported as skipped when it may not.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const canMountTmpfs = process.platform === 'linux' && process.getuid?.() === 0;

export interface Tmpfs {
  dir: string;
  /** sets the filesystem's size, e.g. '8m' */
  resize(size: string): void;
  /** writes a file of zeros until the filesystem has no room left */
  fill(): Promise<void>;
  unmount(): Promise<void>;
}

export async function mountTmpfs(size: string): Promise<Tmpfs> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'standin-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  return {
    dir,
    resize: (to) => execFileSync('mount', ['-o', `remount,size=${to}`, dir]),
    fill: async () => {
      const filler = await open(path.join(dir, 'filler'), 'a');
      const chunk = Buffer.alloc(4096);
      try {
        // bounded by the filesystem's size: every write takes a page until ENOSPC
        for (;;) await filler.write(chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        await filler.close();
      }
    },
    unmount: async () => {
      execFileSync('umount', ['-l', dir]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
