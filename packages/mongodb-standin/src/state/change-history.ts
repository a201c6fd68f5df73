/**
 * The change history change streams read: the server's oplog. Every change the store applies
 * arrives here stamped with its cluster time (engine/changes.ts), in stamp order, and is kept
 * until the history passes its bound, `maxBytes` of changes (their BSON size): then the oldest
 * tenth is dropped, and a stream that would resume before what is kept is refused with
 * ChangeStreamHistoryLost (286), as mongod refuses one whose resume point fell off the oplog.
 * The bound keeps memory proportional to it (a change holds its document image, a reference to
 * the stored document while that lives), and with a data directory the same window is kept on
 * disk: the journal keeps the generations that hold it and restores it at a restart
 * (state/journal.ts), so a stream can resume across a restart.
 *
 * Positions: `start` is the first cluster time the history covers (the first kept change's, or
 * the server's first stamp while nothing was ever dropped); entries are addressed by an
 * ever-increasing sequence number, so a stream's position survives drops in front of it.
 *
 * Waiting: a getMore with awaitData registers with `waitForChanges` and is woken by the next
 * change (or its own deadline); the server never blocks while it waits.
 */
import { calculateObjectSize, Timestamp } from 'bson';
import type { LoggedChange } from '../engine/changes';

export const DEFAULT_CHANGE_HISTORY_BYTES = 32 * 1024 * 1024;
/** setTimeout's longest delay; a longer wait is resumed by its caller (change-stream.ts loops) */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class ChangeHistory {
  private entries: LoggedChange[] = [];
  private sizes: number[] = [];
  /** sequence number of entries[0] */
  private first = 0;
  private bytes = 0;
  private startTime: Timestamp;
  private waiters = new Set<() => void>();
  private closed = false;
  private forgotten = 0;

  constructor(
    private readonly maxBytes: number,
    start: Timestamp,
  ) {
    this.startTime = start;
  }

  /** The first cluster time the history covers. */
  get start(): Timestamp {
    return this.startTime;
  }

  /** Sequence number the next change will get. */
  get end(): number {
    return this.first + this.entries.length;
  }

  /**
   * How often changes were forgotten: sequence numbers past the end were then given again, so a
   * stream that read past the new end must find its place again by its resume point.
   */
  get forgets(): number {
    return this.forgotten;
  }

  /** Sequence number of the oldest kept change. */
  get begin(): number {
    return this.first;
  }

  at(sequence: number): LoggedChange {
    return this.entries[sequence - this.first];
  }

  /** First sequence number whose change is at or after `ts` (binary search). */
  firstAtOrAfter(ts: Timestamp): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.entries[middle].ts.lessThan(ts)) low = middle + 1;
      else high = middle;
    }
    return this.first + low;
  }

  /** A change applied now: kept, and every waiting getMore woken. */
  append(change: LoggedChange): void {
    this.keep(change);
    if (this.waiters.size === 0) return;
    const woken = this.waiters;
    this.waiters = new Set();
    for (const wake of woken) wake();
  }

  /** A change restored from disk at startup (before any is appended). */
  restore(change: LoggedChange): void {
    if (this.entries.length === 0 && change.ts.lessThan(this.startTime)) this.startTime = change.ts;
    this.keep(change);
  }

  /**
   * Forgets every change after `ts`: the journal failed to write them and memory was read back
   * from the disk (state/journal.ts), so no stream may report them.
   */
  forgetAfter(ts: Timestamp): void {
    this.forgotten++;
    let keep = this.entries.length;
    while (keep > 0 && this.entries[keep - 1].ts.greaterThan(ts)) this.bytes -= this.sizes[--keep];
    this.entries.length = keep;
    this.sizes.length = keep;
  }

  /**
   * Resolves at the next change or after `ms`, whichever comes first: true, or false once the
   * server is closing (waiting getMores then answer at once).
   */
  waitForChanges(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(!this.closed);
      };
      // unref: a waiting getMore never keeps the process alive (the server's socket does)
      const timer = setTimeout(wake, Math.min(ms, MAX_TIMER_MS)).unref();
      this.waiters.add(wake);
    });
  }

  /** Wakes every waiting getMore to look again (a cursor was killed: its getMore ends). */
  wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** Wakes every waiting getMore for good (the server is stopping). */
  close(): void {
    this.closed = true;
    this.wakeAll();
  }

  private keep(change: LoggedChange): void {
    const size = calculateObjectSize(change);
    this.entries.push(change);
    this.sizes.push(size);
    this.bytes += size;
    if (this.bytes > this.maxBytes) this.dropOldest();
  }

  /** Drops the oldest tenth of the bound at once, so dropping costs O(1) per change. */
  private dropOldest(): void {
    const target = this.maxBytes * 0.9;
    let drop = 0;
    while (this.bytes > target && drop < this.entries.length - 1) this.bytes -= this.sizes[drop++];
    // a transaction's changes share one cluster time: they are kept or dropped together
    while (
      drop < this.entries.length - 1 &&
      this.entries[drop].ts.equals(this.entries[drop - 1].ts)
    )
      this.bytes -= this.sizes[drop++];
    this.entries = this.entries.slice(drop);
    this.sizes = this.sizes.slice(drop);
    this.first += drop;
    this.startTime = this.entries[0].ts;
  }
}
