/**
 * Who owns a data directory: the process holding an exclusive OS lock on its `standin.lock`
 * (as mongod holds `mongod.lock`). The lock is taken with one non-blocking system call
 * (fs-native-extensions: an open-file-description lock on Linux, flock on macOS, LockFileEx on
 * Windows), so two processes starting at the same instant cannot both win: there is no
 * read-check-write window. The kernel releases it when its holder closes the file or dies, so a
 * lock left by a crash is free at once and no staleness has to be judged from a pid. The file
 * holds the owner's pid only to name it in the refusal (a contender that looks before the new
 * owner wrote it says "another process"); nothing trusts it.
 *
 * The file is never deleted: deleting it on release would let a process that opened the old
 * file and one that creates a new one each hold "the" lock. A clean stop empties it instead.
 */
import { FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { tryLock } from 'fs-native-extensions';

export const LOCK_FILE = 'standin.lock';

export class DataDirectoryLock {
  private constructor(private readonly file: FileHandle) {}

  /** Locks `dir` for this process, or throws naming the process that holds it. */
  static async take(dir: string): Promise<DataDirectoryLock> {
    const lockPath = path.join(dir, LOCK_FILE);
    const file = await open(lockPath, 'a+');
    try {
      if (!tryLock(file.fd)) {
        // empty while the owner, which has just taken the lock, has not yet written its pid
        const owner = (await file.readFile('utf8')).trim();
        throw new Error(
          `the data directory ${dir} is in use by ${owner ? `process ${owner}` : 'another process'} (${lockPath})`,
        );
      }
      await file.truncate(0);
      await file.write(`${process.pid}\n`);
      return new DataDirectoryLock(file);
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** Empties the file and closes it, which releases the lock. */
  async release(): Promise<void> {
    try {
      await this.file.truncate(0);
    } finally {
      await this.file.close();
    }
  }
}
