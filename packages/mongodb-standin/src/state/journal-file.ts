/**
 * One journal generation's file, preallocated: records are written in place into space filled
 * with zeros ahead of them, PREALLOCATE_BYTES at a time, so the fdatasync after a batch flushes
 * data pages only. Appending instead grows the file at every batch, and each fdatasync must then
 * also commit the new size and blocks through the filesystem's own journal (on this project's
 * ext4 disk an fdatasync of an append took 0.26–0.34 ms at the median, of a write into zeros
 * 0.16–0.22 ms; a former measurement 4–6 ms against 3.2–3.5 ms).
 *
 * Zeros, not fallocate: ext4 marks fallocated blocks unwritten, and the first write into them
 * changes the block map, which is the metadata an fdatasync would then commit anyway.
 *
 * Invariant: the file is `recordsEnd` bytes of records (whole when written by `append`; fsynced
 * or not, which the journal tracks) followed by zeros up to `allocatedEnd`, its size. Recovery
 * (record-file.ts) relies on it: the records end where only zeros follow, and a record cut short
 * by a crash is followed by zeros. Zeros are written before the records that go into them
 * (space is extended before a batch that would not fit, in the same serial order of writes), so
 * a crash in the middle of extending leaves records then zeros too.
 *
 * A batch of at most SYNC_WRITE_BYTES is written with a blocking write on the event loop's
 * thread (the zeros, larger batches and the fsync, which waits for the disk, go through the
 * thread pool): into space already written, it only copies into the page cache, while handing
 * it to the pool costs a wake-up of a pool thread and of the event loop per batch. On this 2-core
 * machine that cost more: in 5 alternating rounds at load 2.3-3.1 (`$inc` and inserts, 10
 * pairs), stand-in CPU per journaled write was 2-19% lower in all 10, writes a second 1-12%
 * higher in 9 (4% lower in one).
 *
 * Where the fsync runs is a trade, decided at each one by how long the last one took. On the
 * event loop's thread (`fdatasyncSync`) it holds the loop for its whole wait; in the thread pool
 * it holds nothing, but costs the hand-off: a pool thread woken and put back to sleep, the event
 * loop woken by it, and the loop's thread preempted by the pool thread (on this project's 2-core
 * VM about 5 context switches per fsync, 14 µs more kernel CPU per journaled `$inc` at 32 in
 * flight, where the fdatasync itself returned in 0.2 to 0.3 ms). While the last fsync returned
 * within LOOP_SYNC_LIMIT_MS the next one runs on the loop: the batch's commands wait for it
 * anyway, and the others ran in the turn that built the batch. Once one takes longer (a
 * laptop's full fsync, a busy or slow disk), the next ones go to the pool until one is quick
 * again, so a slow disk never holds the loop for long, nor a service sharing it (the embedded
 * database of `npm start`). Measured in the package's README.md ("Where the fsync runs").
 *
 * The space is taken when the first batch needs it, not when the file is created: a restart on a
 * full disk still recovers. When zeros cannot be written (ENOSPC), `append` fails like any write
 * and the journal refuses writes with OutOfDiskSpace until a probe of at least PREALLOCATE_BYTES
 * more than the failed batch succeeds (journal.ts); it cuts the file back to its fsynced records
 * with `truncate`, zeros included. Files the journal is done with lose their zeros (`close`), so
 * sizes on disk are sizes of records.
 */
import { fdatasyncSync } from 'node:fs';
import { FileHandle, open } from 'node:fs/promises';
import { writeFully, writeFullySync } from './record-file';

/** zeros written ahead of the records at a time: one size change per this many journal bytes */
export const PREALLOCATE_BYTES = 1024 * 1024;
const ZEROS = Buffer.alloc(PREALLOCATE_BYTES);
/** batches up to this size are written without the thread pool (see the header) */
const SYNC_WRITE_BYTES = 256 * 1024;
/** an fsync that returned within this runs the next one on the event loop (see the header) */
export const LOOP_SYNC_LIMIT_MS = 1;

export class JournalFile {
  /** bytes of records written (fsynced or not); every byte after it is zero */
  private recordsEnd = 0;
  /** the file's size: records, then zeros */
  private allocatedEnd = 0;
  /** how long the last fsync took, from its call to its return */
  private lastSyncMs = 0;

  private constructor(private readonly handle: FileHandle) {}

  /** Creates the file, empty (a file of that name holding no records is replaced). */
  static async create(file: string): Promise<JournalFile> {
    return new JournalFile(await open(file, 'w'));
  }

  /** Bytes of zeros after the records (space taken and not used yet). */
  get preallocated(): number {
    return this.allocatedEnd - this.recordsEnd;
  }

  /** Writes `buffers` after the records, first writing zeros ahead when they would not fit. */
  async append(buffers: readonly Buffer[]): Promise<number> {
    let bytes = 0;
    for (const buffer of buffers) bytes += buffer.length;
    const needed = this.recordsEnd + bytes;
    if (needed > this.allocatedEnd) {
      const target = Math.ceil(needed / PREALLOCATE_BYTES) * PREALLOCATE_BYTES;
      const zeros: Buffer[] = [];
      for (let at = this.allocatedEnd; at < target; at += PREALLOCATE_BYTES)
        zeros.push(ZEROS.subarray(0, Math.min(PREALLOCATE_BYTES, target - at)));
      await writeFully(this.handle, zeros, this.allocatedEnd);
      this.allocatedEnd = target;
    }
    const written =
      bytes <= SYNC_WRITE_BYTES
        ? writeFullySync(this.handle.fd, buffers, this.recordsEnd)
        : await writeFully(this.handle, buffers, this.recordsEnd);
    this.recordsEnd += written;
    return written;
  }

  /**
   * Flushes what was written to the disk, on the event loop or in the thread pool (see the
   * header); a failure rejects, it never throws.
   */
  datasync(): Promise<void> {
    const started = performance.now();
    const took = () => {
      this.lastSyncMs = performance.now() - started;
    };
    if (this.lastSyncMs > LOOP_SYNC_LIMIT_MS) return this.handle.datasync().then(took);
    try {
      fdatasyncSync(this.handle.fd);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    took();
    return Promise.resolve();
  }

  /** Cuts the file to its first `length` bytes of records: what came after, zeros included, goes. */
  async truncate(length: number): Promise<void> {
    await this.handle.truncate(length);
    this.recordsEnd = this.allocatedEnd = length;
  }

  /**
   * Closes the file; with `trim`, first drops the zeros after the records (a crash before that
   * leaves them, which recovery reads as the end of the records).
   */
  async close(trim: boolean): Promise<void> {
    try {
      if (trim && this.allocatedEnd > this.recordsEnd) await this.truncate(this.recordsEnd);
    } finally {
      await this.handle.close();
    }
  }
}
