/**
 * The stand-in's durability: a data directory holding a snapshot and the journal written since.
 *
 * Every change the engine applies (engine/changes.ts) is appended, as one checksummed record,
 * to an in-memory tail at once; `durable()` resolves when everything appended so far is
 * written and fsynced. The server awaits it before sending any reply, so no reply (a write's
 * acknowledgement or a read of it) reveals state that a crash could lose. Group commit: while
 * one write+fsync is in flight, further records gather and go in the next single write+fsync,
 * so concurrent clients share fsyncs instead of queueing one each.
 *
 * Journal files are `journal.<generation>`. When the journal written since the last snapshot
 * passes `snapshotAfterBytes`, the store is captured (synchronously, so the capture holds
 * exactly the records of the generations so far), new records go to the next generation, and
 * the snapshot is written in the background (snapshot.ts: temp, fsync, rename); only then are
 * the older generations deleted. A crash anywhere in between leaves a snapshot plus every
 * journal generation it does not contain. Recovery loads the snapshot, replays those
 * generations in order, truncates a torn last record (record-file.ts), starts a new
 * generation and, when it replayed anything, snapshots in the background at once: a restart
 * reads one snapshot and at most about `snapshotAfterBytes` of journal (none after a clean
 * stop, which snapshots what the journal holds). A write or fsync that fails (a full disk) leaves
 * the journal failed: from then on every command is answered with that error (InternalError),
 * writes without running, since memory may hold changes the disk does not and no reply may show
 * them; a restart recovers what was acknowledged. `standin.lock` (the owner's pid) keeps a second live
 * process off the directory; a lock left by a dead process is taken over.
 *
 * The change history (change-history.ts) outlives snapshots: generations a snapshot contains are
 * kept, newest first, while they total at most the history's byte bound, and a restart restores
 * their stamped changes (and the replayed ones) into the history without applying them, so a
 * change stream can resume across a restart from anywhere in that window. Records written
 * before changes were stamped (0.3) carry no cluster time and are not restored.
 */
import {
  FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  rm,
  stat,
  truncate,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { applyChange, eachChange } from '../engine/apply-change';
import { Change, LoggedChange, StoreChange } from '../engine/changes';
import { Store } from '../engine/store';
import { Document } from '../engine/values';
import { decodeRecords, encodeRecord } from './record-file';
import { captureStore, loadSnapshot, syncDirectory, writeSnapshot } from './snapshot';

export const DEFAULT_SNAPSHOT_AFTER_BYTES = 8 * 1024 * 1024;
const LOCK_FILE = 'standin.lock';
const JOURNAL_PATTERN = /^journal\.(\d+)$/;

export interface JournalOptions {
  /** journal bytes since the last snapshot that trigger a new snapshot */
  snapshotAfterBytes?: number;
  log: (line: string) => void;
  /** where changes kept for change streams go at a restart, and how many bytes of them to keep */
  history?: { maxBytes: number; restore: (change: LoggedChange) => void };
}

export interface RecoveryReport {
  documents: number;
  journalRecords: number;
  tornBytes: number;
  milliseconds: number;
  /** CPU time of this process during recovery (wall time also counts what else runs) */
  cpuMilliseconds: number;
}

function journalName(generation: number): string {
  return `journal.${String(generation).padStart(6, '0')}`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function takeLock(dir: string): Promise<string> {
  const lock = path.join(dir, LOCK_FILE);
  const owner = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
  if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
    throw new Error(`the data directory ${dir} is in use by process ${owner} (${lock})`);
  }
  await writeFile(lock, `${process.pid}\n`);
  return lock;
}

async function journalGenerations(dir: string): Promise<number[]> {
  const generations: number[] = [];
  for (const name of await readdir(dir)) {
    const match = JOURNAL_PATTERN.exec(name);
    if (match) generations.push(Number(match[1]));
  }
  return generations.sort((a, b) => a - b);
}

const NO_HISTORY = { maxBytes: 0, restore: () => undefined };

/**
 * Of the generations a snapshot contains, the newest ones that together hold at most
 * `maxBytes`: kept for the change history.
 */
async function generationsForHistory(
  dir: string,
  contained: number[],
  maxBytes: number,
): Promise<Set<number>> {
  const kept = new Set<number>();
  let bytes = 0;
  for (const generation of [...contained].sort((a, b) => b - a)) {
    bytes += (await stat(path.join(dir, journalName(generation)))).size;
    if (bytes > maxBytes) break;
    kept.add(generation);
  }
  return kept;
}

export class Journal {
  private tail: Buffer[] = [];
  private appended = 0;
  private written = 0;
  private waiters: Array<{ upTo: number; resolve: () => void; reject: (e: Error) => void }> = [];
  private flushing: Promise<void> | null = null;
  private snapshotting: Promise<void> | null = null;
  private failure: Error | null = null;
  private bytesSinceSnapshot: number;
  private snapshotRequested = false;
  private readonly stopObserving: () => void;

  private constructor(
    private readonly dir: string,
    private readonly store: Store,
    private readonly lock: string,
    private file: FileHandle,
    private generation: number,
    journalBytes: number,
    private readonly options: Required<JournalOptions>,
  ) {
    this.bytesSinceSnapshot = journalBytes;
    this.stopObserving = store.observe((change) => this.append(change));
  }

  /** Recovers `dir` into the empty `store`, then journals every later change of it. */
  static async open(
    dir: string,
    store: Store,
    options: JournalOptions,
  ): Promise<{ journal: Journal; recovery: RecoveryReport }> {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    await mkdir(dir, { recursive: true });
    const lock = await takeLock(dir);
    const journalFrom = await loadSnapshot(dir, store);
    const generations = await journalGenerations(dir);
    let journalRecords = 0;
    let journalBytes = 0;
    let tornBytes = 0;
    const history = options.history ?? NO_HISTORY;
    const kept = await generationsForHistory(
      dir,
      generations.filter((generation) => generation < journalFrom),
      history.maxBytes,
    );
    const restore = (records: Document[]) => {
      for (const record of records) {
        if (record.ts) eachChange(record as StoreChange, (change) => history.restore(change));
      }
    };
    for (const generation of generations) {
      const file = path.join(dir, journalName(generation));
      if (generation < journalFrom) {
        if (kept.has(generation)) restore(decodeRecords(await readFile(file), file).records);
        else await rm(file);
        continue;
      }
      const buffer = await readFile(file);
      const decoded = decodeRecords(buffer, file);
      if (decoded.torn) {
        if (generation !== generations[generations.length - 1]) {
          throw new Error(`${file} ends in a torn record but is not the newest journal`);
        }
        tornBytes = buffer.length - decoded.validLength;
        await truncate(file, decoded.validLength);
        options.log(
          `MongoDB stand-in: dropped a torn last journal record (${tornBytes} bytes) of ${file}`,
        );
      }
      for (const record of decoded.records) applyChange(store, record as Change);
      restore(decoded.records);
      journalRecords += decoded.records.length;
      journalBytes += decoded.validLength;
    }
    const generation = Math.max(journalFrom, (generations[generations.length - 1] ?? 0) + 1);
    const file = await open(path.join(dir, journalName(generation)), 'a');
    await syncDirectory(dir);
    const cpu = process.cpuUsage(cpuBefore);
    let documents = 0;
    for (const db of store.databaseNames())
      for (const collection of store.collections(db)) documents += collection.size;
    const journal = new Journal(dir, store, lock, file, generation, journalBytes, {
      snapshotAfterBytes: options.snapshotAfterBytes ?? DEFAULT_SNAPSHOT_AFTER_BYTES,
      log: options.log,
      history,
    });
    // what was replayed goes into a snapshot now, in the background: the next start reads it
    if (journalRecords > 0) journal.requestSnapshot();
    return {
      journal,
      recovery: {
        documents,
        journalRecords,
        tornBytes,
        milliseconds: Math.round(performance.now() - started),
        cpuMilliseconds: Math.round((cpu.user + cpu.system) / 1000),
      },
    };
  }

  /** The error that stopped the journal, or null while it works. */
  get failed(): Error | null {
    return this.failure;
  }

  /** Resolves once every change appended so far is on disk (rejects if the journal failed). */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const upTo = this.appended;
    if (this.written >= upTo) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ upTo, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /**
   * Writes what is pending and, when the journal holds anything since the last snapshot, a
   * snapshot (as mongod checkpoints at shutdown), so the next start replays no journal; then
   * closes the file and the lock.
   */
  async close(): Promise<void> {
    this.stopObserving();
    if (!this.failure) {
      await this.durable().catch(() => undefined);
      await this.snapshotting;
      if (this.bytesSinceSnapshot > 0) this.requestSnapshot();
    }
    await this.flushing;
    await this.snapshotting;
    await this.file.close();
    await rm(this.lock, { force: true });
  }

  /** Takes a snapshot as soon as the journal is idle (between group commits). */
  requestSnapshot(): void {
    this.snapshotRequested = true;
    this.flushing ??= this.flush();
  }

  private append(change: StoreChange): void {
    this.tail.push(encodeRecord(change as unknown as Document));
    this.appended++;
  }

  private async flush(): Promise<void> {
    try {
      for (;;) {
        if (this.snapshotDue()) {
          await this.rotate();
          continue;
        }
        if (this.written >= this.appended) break;
        const records = this.tail;
        const upTo = this.appended;
        this.tail = [];
        await this.writeAndSync(records);
        this.written = upTo;
        this.settle();
      }
    } catch (error) {
      this.fail(error as Error);
    } finally {
      this.flushing = null;
    }
  }

  private snapshotDue(): boolean {
    return (
      !this.snapshotting &&
      (this.snapshotRequested || this.bytesSinceSnapshot >= this.options.snapshotAfterBytes)
    );
  }

  private async writeAndSync(records: Buffer[]): Promise<void> {
    if (records.length === 0) return;
    await this.file.writev(records);
    await this.file.datasync();
    for (const record of records) this.bytesSinceSnapshot += record.length;
  }

  /**
   * Captures the store and switches generations in one synchronous step; the records appended
   * before it go to the old generation, which the snapshot then contains.
   */
  private async rotate(): Promise<void> {
    const captured = captureStore(this.store, this.generation + 1);
    const oldRecords = this.tail;
    const oldUpTo = this.appended;
    const oldFile = this.file;
    this.tail = [];
    this.generation++;
    this.bytesSinceSnapshot = 0;
    this.snapshotRequested = false;
    await oldFile.writev(oldRecords);
    await oldFile.datasync();
    await oldFile.close();
    this.written = oldUpTo;
    this.settle();
    this.file = await open(path.join(this.dir, journalName(this.generation)), 'a');
    await syncDirectory(this.dir);
    const newest = this.generation;
    this.snapshotting = writeSnapshot(this.dir, captured)
      .then(async () => {
        const older = (await journalGenerations(this.dir)).filter((g) => g < newest);
        const kept = await generationsForHistory(this.dir, older, this.options.history.maxBytes);
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

  private settle(): void {
    const still: typeof this.waiters = [];
    for (const waiter of this.waiters) {
      if (waiter.upTo <= this.written) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  private fail(error: Error): void {
    this.failure = new Error(`the stand-in's journal failed: ${error.message}`);
    this.options.log(
      `MongoDB stand-in: ${this.failure.message}; every command fails until restart`,
    );
    for (const waiter of this.waiters) waiter.reject(this.failure);
    this.waiters = [];
  }
}
