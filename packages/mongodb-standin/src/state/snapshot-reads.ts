/**
 * Reads with readConcern `snapshot` outside transactions (find, aggregate, distinct), as a
 * one-member replica set serves them: a read without `atClusterTime` reads the data as it is and
 * answers the time it read at (`atClusterTime`, in the cursor or beside distinct's values); a
 * read with `atClusterTime` reads the data as it was then, however it changed since, so a
 * snapshot session sees one point in time.
 *
 * The data as of a time is kept by capturing the store when a snapshot read first reads at
 * that time (documents are never mutated in place, so a capture holds references and costs one
 * pass over the store). Captures are kept for mongod's minSnapshotHistoryWindowInSeconds
 * (300 s), at most MAX_CAPTURES of them, and only of stores up to MAX_CAPTURED_DOCUMENTS
 * documents (a larger store refuses snapshot reads by name). A time with no capture, or one
 * older than the window, is SnapshotTooOld (239), as mongod answers a time its history no
 * longer holds; a time in the future is refused (InvalidOptions).
 */
import { Timestamp } from 'bson';
import { ClusterClock } from '../engine/cluster-clock';
import { CommandError, ErrorCode, unsupported } from '../engine/errors';
import { Store } from '../engine/store';
import { Document, isPlainDocument } from '../engine/values';

const SNAPSHOT_READS = new Set(['find', 'aggregate', 'distinct']);
const HISTORY_WINDOW_MS = 300_000;
const MAX_CAPTURES = 16;
const MAX_CAPTURED_DOCUMENTS = 100_000;

interface Capture {
  at: Timestamp;
  takenAt: number;
  store: Store;
}

function copyOf(store: Store): Store {
  const copy = new Store();
  for (const db of store.databaseNames()) {
    for (const source of store.collections(db)) {
      const { collection } = copy.obtain(db, source.name);
      for (const index of source.indexes.slice(1)) collection.addIndex(index.spec);
      for (const doc of source.all()) collection.insert(doc);
    }
  }
  return copy;
}

function documentCount(store: Store): number {
  let count = 0;
  for (const db of store.databaseNames())
    for (const collection of store.collections(db)) count += collection.size;
  return count;
}

/** Whether a command asks for a snapshot read (outside a transaction). */
export function isSnapshotRead(command: Document): boolean {
  return (
    command.autocommit === undefined &&
    isPlainDocument(command.readConcern) &&
    command.readConcern.level === 'snapshot'
  );
}

export class SnapshotReads {
  private captures: Capture[] = [];

  constructor(
    private readonly store: Store,
    private readonly clock: ClusterClock,
  ) {}

  /**
   * Runs `read` against the store as of the command's atClusterTime (or now) and adds
   * `atClusterTime` to its reply.
   */
  run(command: Document, name: string, read: (store: Store) => Document): Document {
    if (!SNAPSHOT_READS.has(name))
      throw new CommandError(
        ErrorCode.InvalidOptions,
        `Command ${name} does not support { readConcern: { level: "snapshot" } } outside a transaction`,
      );
    const asked = (command.readConcern as Document).atClusterTime;
    const at = asked === undefined ? this.clock.now() : this.timestampOf(asked);
    const reply = read(this.storeAt(at));
    if (reply.ok !== 1) return reply;
    if (isPlainDocument(reply.cursor))
      return { ...reply, cursor: { ...reply.cursor, atClusterTime: at } };
    return { ...reply, atClusterTime: at };
  }

  /**
   * Forgets the captures taken after `ts`: the journal failed to write the changes after it and
   * memory was read back from the disk (state/journal.ts), so no read may show them.
   */
  forgetAfter(ts: Timestamp): void {
    this.captures = this.captures.filter((capture) => !capture.at.greaterThan(ts));
  }

  private timestampOf(value: unknown): Timestamp {
    if (!(value instanceof Timestamp))
      throw new CommandError(ErrorCode.TypeMismatch, `atClusterTime must be a timestamp`);
    if (value.greaterThan(this.clock.now()))
      throw new CommandError(
        ErrorCode.InvalidOptions,
        `readConcern atClusterTime ${value.toString()} is later than the cluster time ${this.clock.now().toString()}`,
      );
    return value;
  }

  /** The store as of `at`: its capture, taken now when `at` is the current time. */
  private storeAt(at: Timestamp): Store {
    const now = Date.now();
    this.captures = this.captures.filter((capture) => now - capture.takenAt < HISTORY_WINDOW_MS);
    const kept = this.captures.find((capture) => capture.at.equals(at));
    if (kept) return kept.store;
    if (!at.equals(this.clock.now()))
      throw new CommandError(
        ErrorCode.SnapshotTooOld,
        `Read timestamp ${at.toString()} is older than the oldest available timestamp (the stand-in keeps only the times snapshot reads were first made at)`,
      );
    if (documentCount(this.store) > MAX_CAPTURED_DOCUMENTS)
      throw unsupported(`snapshot reads of a store above ${MAX_CAPTURED_DOCUMENTS} documents`);
    const capture = { at, takenAt: now, store: copyOf(this.store) };
    this.captures = [...this.captures.slice(-(MAX_CAPTURES - 1)), capture];
    return capture.store;
  }
}
