/**
 * The stand-in's durability: a data directory holding a snapshot and the journal written since.
 *
 * Every change the engine applies (engine/changes.ts), and every record a journal extension
 * appends (durable-state.ts), goes as one checksummed record to an in-memory tail at once;
 * `durable()` resolves when everything appended so far is written and fsynced. The server
 * awaits it before sending any reply, so no reply (a write's acknowledgement or a read of it)
 * reveals state that a crash could lose. Group commit: a batch is what commands appended while
 * they kept coming, up to the end of the first turn of the event loop that appended nothing (every
 * command whose request had arrived ran in that turn's I/O phase) or BATCH_OPEN_MS, one write and
 * one fsync for all of them, so concurrent clients share fsyncs instead of queueing one each
 * (`flush`). `group(fn)` makes the records of `fn` one record, applied all or none after a crash
 * (the server groups each command's changes).
 *
 * Nothing counts as written on the word of one write call: `writeFully` (record-file.ts) writes
 * what a short write left, and the file's length of whole, fsynced records is tracked. When a
 * write or fsync fails (ENOSPC, EIO, a read-only filesystem, ...), nothing of the failed batch or
 * of what came after it is acknowledged, and the journal, synchronously, (1) refuses every
 * write command with the reason: OutOfDiskSpace (14031) for ENOSPC and EDQUOT, NotWritablePrimary
 * (10107) for any other failure (as a member that cannot write; mongod itself would stop);
 * (2) holds every command until (3) the file is truncated back to its last good length and
 * fsynced and, when memory held changes the disk does not, memory is emptied and read back from
 * the directory, exactly as at a restart: memory equals the disk again, so reads go on and no
 * reply shows a change that was not written. While refusing, a write command at most every
 * PROBE_INTERVAL_MS first tries a probe (writing and fsyncing PROBE_FILE of at least the failed
 * batch's size plus the zeros written ahead of records, then deleting it); once that succeeds
 * writes are taken again, with no restart.
 * Only when the truncation or the reading back fails is the journal broken: every command is
 * refused until a restart, which recovers what was acknowledged.
 *
 * Journal files are `journal.<generation>`, each written in place into zeros written ahead of
 * its records (journal-file.ts), so an fdatasync need not commit a new file size. When the
 * journal written since the last snapshot passes `snapshotAfterBytes`, the state is captured
 * (synchronously, so the capture holds exactly the records of the generations so far), new
 * records go to the next generation, and the snapshot is written in the background
 * (snapshot.ts: temp, fsync, rename); only then are the older generations deleted. A crash
 * anywhere in between leaves a snapshot plus every journal generation it does not contain.
 * Recovery (durable-state.ts) loads the snapshot, replays those generations in order,
 * truncates a torn last record and the zeros after the records, starts a new generation
 * and, when it replayed anything, snapshots in the background at once: a restart reads one
 * snapshot and at most about `snapshotAfterBytes` of journal (none after a clean stop, which
 * snapshots what the journal holds). Generations a snapshot contains are kept while the
 * change history needs them (durable-state.ts). The directory's owner is settled by an OS lock
 * (data-lock.ts).
 */
import { mkdir, open, rm } from 'node:fs/promises';
import { setImmediate as endOfTurn } from 'node:timers/promises';
import path from 'node:path';
import type { Timestamp } from 'bson';
import { CommandError, ErrorCode } from '../engine/errors';
import { Store } from '../engine/store';
import { Document } from '../engine/values';
import { DataDirectoryLock } from './data-lock';
import {
  DurableState,
  generationsForHistory,
  GROUP_OP,
  HistoryRestore,
  JournalExtension,
  journalGenerations,
  journalName,
} from './durable-state';
import { JournalFile, PREALLOCATE_BYTES } from './journal-file';
import { RecordEncoder } from './record-encoder';
import { writeFully } from './record-file';
import { captureStore, syncDirectory, writeSnapshot } from './snapshot';

export const DEFAULT_SNAPSHOT_AFTER_BYTES = 8 * 1024 * 1024;
export const PROBE_FILE = 'standin.probe';
/** how often a refusing journal tries whether the disk has room again */
export const PROBE_INTERVAL_MS = 250;
const MIN_PROBE_BYTES = 64 * 1024;
const MAX_PROBE_BYTES = 8 * 1024 * 1024;
const OUT_OF_SPACE = new Set(['ENOSPC', 'EDQUOT']);
/**
 * How long a batch stays open at most while clients keep writing (see `gather`): it bounds what
 * a write waits for the ones after it. Each batch costs an fsync (0.2 ms here, on the event loop's
 * thread, journal-file.ts), so at 32 writes in flight larger batches serve more writes.
 */
export const BATCH_OPEN_MS = 1;

export interface JournalOptions {
  /** journal bytes since the last snapshot that trigger a new snapshot */
  snapshotAfterBytes?: number;
  log: (line: string) => void;
  /** state besides the store kept in the directory, in record kinds of its own */
  extensions?: readonly JournalExtension[];
  /** where changes kept for change streams go at a start, and how many bytes of them to keep */
  history?: HistoryRestore;
  /**
   * called when memory was read back from the disk after a failed write dropped changes: every
   * change stamped after `written` is gone
   */
  onRestored?: (written: Timestamp) => void;
}

export interface RecoveryReport {
  documents: number;
  journalRecords: number;
  tornBytes: number;
  milliseconds: number;
  /** CPU time of this process during recovery (wall time also counts what else runs) */
  cpuMilliseconds: number;
}

/** What everyone waiting for one batch shares: one promise, settled once for all of them. */
interface BatchWaiters {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: CommandError) => void;
}

function batchWaiters(): BatchWaiters {
  let resolve!: () => void;
  let reject!: (error: CommandError) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

interface TakenTail {
  buffers: Buffer[];
  upTo: number;
  ts: Timestamp;
  /** who waits for this batch, created by the first to wait */
  waiters: BatchWaiters | null;
}

const DURABLE = Promise.resolve();

export class Journal {
  private readonly encoder = new RecordEncoder();
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private appended = 0;
  private written = 0;
  /** who waits for the records in the tail, and the batch taken and not yet written */
  private tailWaiters: BatchWaiters | null = null;
  private writing: TakenTail | null = null;
  private flushing: Promise<void> | null = null;
  private snapshotting: Promise<void> | null = null;
  private bytesSinceSnapshot: number;
  private snapshotRequested = false;
  /** records of the `group` in progress */
  private grouping: Document[] | null = null;
  /** bytes of whole, fsynced records in the current file */
  private fileLength = 0;
  /** why writes are refused (the disk failed a write), or null */
  private refusal: CommandError | null = null;
  /** why every command is refused until a restart, or null */
  private broken: CommandError | null = null;
  /** memory being brought back to what the disk holds: no command may run */
  private restoration: Promise<void> | null = null;
  private probing: Promise<void> | null = null;
  private lastProbeAt = 0;
  private probeBytes = PREALLOCATE_BYTES + MIN_PROBE_BYTES;
  /** the cluster time of the newest change appended, and of the newest one written */
  private appendedTs: Timestamp;
  private writtenTs: Timestamp;
  private readonly stopObserving: () => void;

  private constructor(
    private readonly dir: string,
    private readonly state: DurableState,
    private readonly lock: DataDirectoryLock,
    private file: JournalFile,
    private generation: number,
    journalBytes: number,
    private readonly options: Required<Omit<JournalOptions, 'onRestored' | 'history'>> &
      Pick<JournalOptions, 'onRestored'>,
  ) {
    this.bytesSinceSnapshot = journalBytes;
    this.appendedTs = this.writtenTs = state.store.clock.now();
    this.stopObserving = state.store.observe((change) => {
      this.appendedTs = change.ts;
      // a committed transaction is one group record: a crash keeps all of it or none
      this.append(
        change.op === 'transaction'
          ? { op: GROUP_OP, records: change.changes }
          : (change as unknown as Document),
      );
    });
  }

  /** Recovers `dir` into the empty `store` (and extensions), then journals every later change. */
  static async open(
    dir: string,
    store: Store,
    options: JournalOptions,
  ): Promise<{ journal: Journal; recovery: RecoveryReport }> {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    await mkdir(dir, { recursive: true });
    const lock = await DataDirectoryLock.take(dir);
    try {
      const state = new DurableState(store, options.extensions, options.history);
      const contents = await state.readDirectory(dir, options.log);
      await rm(path.join(dir, PROBE_FILE), { force: true });
      const generation = Math.max(contents.journalFrom, contents.newestGeneration + 1);
      const file = await JournalFile.create(path.join(dir, journalName(generation)));
      await syncDirectory(dir);
      const cpu = process.cpuUsage(cpuBefore);
      let documents = 0;
      for (const db of store.databaseNames())
        for (const collection of store.collections(db)) documents += collection.size;
      const journal = new Journal(dir, state, lock, file, generation, contents.journalBytes, {
        snapshotAfterBytes: options.snapshotAfterBytes ?? DEFAULT_SNAPSHOT_AFTER_BYTES,
        log: options.log,
        extensions: options.extensions ?? [],
        onRestored: options.onRestored,
      });
      // what was replayed goes into a snapshot now, in the background: the next start reads it
      if (contents.journalRecords > 0) journal.requestSnapshot();
      return {
        journal,
        recovery: {
          documents,
          journalRecords: contents.journalRecords,
          tornBytes: contents.tornBytes,
          milliseconds: Math.round(performance.now() - started),
          cpuMilliseconds: Math.round((cpu.user + cpu.system) / 1000),
        },
      };
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** True while commands must ask `admit` before running (a write failed). */
  get troubled(): boolean {
    return this.restoration !== null || this.refusal !== null || this.broken !== null;
  }

  /** True while memory is being read back from the disk: no command may run. */
  get restoring(): boolean {
    return this.restoration !== null;
  }

  /**
   * Waits until memory matches the disk; returns why the command may not run (every command of
   * a broken journal, a write of a refusing one), or null. The caller checks `restoring` and
   * runs the command in the same synchronous step.
   */
  async admit(isWrite: boolean): Promise<CommandError | null> {
    while (this.restoration) await this.restoration;
    if (this.broken) return this.broken;
    if (!isWrite || !this.refusal) return null;
    if (!this.probing && Date.now() - this.lastProbeAt >= PROBE_INTERVAL_MS) {
      this.probing = this.probe().finally(() => (this.probing = null));
    }
    await this.probing;
    while (this.restoration) await this.restoration;
    return this.broken ?? this.refusal;
  }

  /** Appends a record of an extension's kind (durable-state.ts); `durable()` covers it. */
  append(record: Document): void {
    if (this.grouping) {
      this.grouping.push(record);
      return;
    }
    const encoded = this.encoder.encode(record);
    this.tail.push(encoded);
    this.tailBytes += encoded.length;
    this.appended++;
  }

  /** Runs `fn`; every record it appends (store changes included) is written as one record. */
  group<T>(fn: () => T): T {
    if (this.grouping) return fn();
    this.grouping = [];
    try {
      return fn();
    } finally {
      const records = this.grouping;
      this.grouping = null;
      // appended even when fn threw: memory holds those changes, so the disk must too
      if (records.length === 1) this.append(records[0]);
      else if (records.length > 1) this.append({ op: GROUP_OP, records });
    }
  }

  /** Resolves once every record appended so far is on disk; rejects with the refusal if not. */
  durable(): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.written >= this.appended) return DURABLE;
    if (this.tail.length > 0) {
      // before flush starts: it may take the tail at once, and the waiters with it
      const waiters = (this.tailWaiters ??= batchWaiters());
      this.flushing ??= this.flush();
      return waiters.promise;
    }
    // everything appended is in the batch being written
    return (this.writing!.waiters ??= batchWaiters()).promise;
  }

  /**
   * Writes what is pending and, when the journal holds anything since the last snapshot, a
   * snapshot (as mongod checkpoints at shutdown), so the next start replays no journal; then
   * closes the file and releases the directory.
   */
  async close(): Promise<void> {
    this.stopObserving();
    while (this.restoration) await this.restoration;
    if (!this.broken && !this.refusal) {
      await this.durable().catch(() => undefined);
      await this.snapshotting;
      if (this.bytesSinceSnapshot > 0 && !this.refusal) this.requestSnapshot();
    }
    await this.flushing;
    await this.snapshotting;
    await this.file.close(!this.broken && !this.refusal);
    await this.lock.release();
  }

  /** Takes a snapshot as soon as the journal is idle (between group commits). */
  requestSnapshot(): void {
    this.snapshotRequested = true;
    this.flushing ??= this.flush();
  }

  /**
   * Writes the tail as batches, one write and one fsync each, one batch at a time. A batch is
   * taken at the end of a turn of the event loop (`gather`): every command whose request had
   * arrived ran in that turn's I/O phase, so concurrent clients' records share the batch, and a
   * lone writer waits for no timer. Records appended while a batch is written go in the next.
   */
  private async flush(): Promise<void> {
    try {
      for (;;) {
        if (this.snapshotDue()) {
          await this.rotate();
          continue;
        }
        if (this.tail.length === 0) break;
        await this.gather();
        const batch = this.takeTail();
        await this.writeAndSync(batch.buffers);
        this.markWritten(batch);
      }
    } catch (error) {
      this.failWrite(error);
    } finally {
      this.flushing = null;
    }
  }

  /**
   * Keeps the batch open while clients keep writing: it closes at the end of the first turn of
   * the event loop that appended no record, or once it has been open BATCH_OPEN_MS.
   */
  private async gather(): Promise<void> {
    const opened = performance.now();
    let appended: number;
    do {
      appended = this.appended;
      await endOfTurn();
    } while (this.appended > appended && performance.now() - opened < BATCH_OPEN_MS);
  }

  private takeTail(): TakenTail {
    const taken: TakenTail = {
      buffers: this.tail,
      upTo: this.appended,
      ts: this.appendedTs,
      waiters: this.tailWaiters,
    };
    this.tailWaiters = null;
    this.writing = taken;
    // room for the batch and for the zeros written ahead of it (journal-file.ts)
    this.probeBytes =
      PREALLOCATE_BYTES + Math.min(MAX_PROBE_BYTES, Math.max(MIN_PROBE_BYTES, this.tailBytes));
    this.tail = [];
    this.tailBytes = 0;
    return taken;
  }

  /** Counts the batch being written as written, and answers who waited for it. */
  private markWritten(batch: TakenTail): void {
    this.written = batch.upTo;
    this.writtenTs = batch.ts;
    this.writing = null;
    batch.waiters?.resolve();
  }

  private snapshotDue(): boolean {
    return (
      !this.snapshotting &&
      !this.refusal &&
      (this.snapshotRequested || this.bytesSinceSnapshot >= this.options.snapshotAfterBytes)
    );
  }

  /** Appends `records` to the current file and fsyncs it; on success they count as written. */
  private async writeAndSync(records: Buffer[]): Promise<void> {
    if (records.length === 0) return;
    const bytes = await this.file.append(records);
    await this.file.datasync();
    this.fileLength += bytes;
    this.bytesSinceSnapshot += bytes;
  }

  /**
   * Captures the state and takes the tail in one synchronous step (the records appended before
   * it go to the old generation, which the snapshot then contains), writes them, and only once
   * the next generation's file exists switches to it; a failure before that leaves the journal
   * on the old generation.
   */
  private async rotate(): Promise<void> {
    const captured = captureStore(
      this.state.store,
      this.generation + 1,
      this.state.captureExtensions(),
    );
    const old = this.takeTail();
    await this.writeAndSync(old.buffers);
    this.markWritten(old);
    const next = path.join(this.dir, journalName(this.generation + 1));
    const file = await JournalFile.create(next);
    try {
      await syncDirectory(this.dir);
    } catch (error) {
      await file.close(false);
      await rm(next, { force: true });
      throw error;
    }
    await this.file.close(true).catch(() => undefined);
    this.file = file;
    this.fileLength = 0;
    this.generation++;
    this.bytesSinceSnapshot = 0;
    this.snapshotRequested = false;
    const newest = this.generation;
    this.snapshotting = writeSnapshot(this.dir, captured)
      .then(async () => {
        const older = (await journalGenerations(this.dir)).filter((g) => g < newest);
        const kept = await generationsForHistory(this.dir, older, this.state.history.maxBytes);
        for (const generation of older) {
          if (!kept.has(generation)) await rm(path.join(this.dir, journalName(generation)));
        }
      })
      .catch((error: unknown) => {
        this.options.log(
          `MongoDB stand-in: snapshot failed (the journal keeps every change): ${(error as Error).message}`,
        );
      })
      .finally(() => {
        this.snapshotting = null;
      });
  }

  private refusalFor(error: unknown): CommandError {
    const { code, message } = error as NodeJS.ErrnoException;
    if (OUT_OF_SPACE.has(code ?? '')) {
      return new CommandError(
        ErrorCode.OutOfDiskSpace,
        `the MongoDB stand-in's data directory ${this.dir} is out of disk space (${message}); writes are refused until it has room again`,
      );
    }
    return new CommandError(
      ErrorCode.NotWritablePrimary,
      `not writable: the MongoDB stand-in's journal in ${this.dir} cannot write (${message}); writes are refused until it can`,
    );
  }

  /** A write or fsync failed: refuse, fail what waits, and bring memory back to the disk. */
  private failWrite(error: unknown): void {
    const refusal = this.refusalFor(error);
    this.refusal = refusal;
    const lost = this.appended > this.written;
    this.tail = [];
    this.tailBytes = 0;
    this.appended = this.written;
    this.tailWaiters?.reject(refusal);
    this.tailWaiters = null;
    this.writing?.waiters?.reject(refusal);
    this.writing = null;
    this.options.log(`MongoDB stand-in: ${refusal.message}`);
    this.restoration = this.restore(lost)
      .catch((cause: unknown) => {
        this.broken = new CommandError(
          refusal.code,
          `${refusal.message}; then the journal could not be restored (${(cause as Error).message}): every command fails until the stand-in is restarted`,
        );
        this.options.log(`MongoDB stand-in: ${this.broken.message}`);
      })
      .finally(() => (this.restoration = null));
  }

  /** Cuts the file back to its whole, fsynced records and, if needed, memory back to the disk. */
  private async restore(lost: boolean): Promise<void> {
    await this.file.truncate(this.fileLength);
    await this.file.datasync();
    await this.snapshotting;
    if (!lost) return;
    await this.state.reload(this.dir, this.options.log);
    this.options.onRestored?.(this.writtenTs);
    this.options.log(
      'MongoDB stand-in: memory read back from the data directory; changes that were not written are gone, and none was acknowledged',
    );
  }

  /** Writes and fsyncs a file as large as the failed batch; on success writes are taken again. */
  private async probe(): Promise<void> {
    this.lastProbeAt = Date.now();
    const file = path.join(this.dir, PROBE_FILE);
    try {
      const handle = await open(file, 'w');
      try {
        await writeFully(handle, [Buffer.alloc(this.probeBytes)]);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      this.refusal = null;
      this.options.log('MongoDB stand-in: the data directory takes writes again');
    } catch (error) {
      this.refusal = this.refusalFor(error);
    } finally {
      await rm(file, { force: true }).catch(() => undefined);
    }
  }
}
