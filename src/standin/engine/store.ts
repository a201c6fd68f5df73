/**
 * All databases of one stand-in server: database name → collection name → Collection. A
 * database exists while it holds at least one collection, as in mongod. Collections are created
 * implicitly by writes and index creation. Every change is stamped with the cluster time
 * (`clock`) and reported, once applied, to every listener set with `observe` (the change
 * history, then the journal); see changes.ts. Dropping a database reports a drop of each of
 * its collections first, as mongod's oplog holds them.
 *
 * `commitAtOnce` is the hook for transactions: the changes its callback makes share one cluster
 * time and carry the transaction's lsid and txnNumber with their position in it (txnOpIndex),
 * so a change stream reports them as one commit.
 */
import { ChangeListener, ChangeRecorder, TransactionStamp } from './changes';
import { ClusterClock } from './cluster-clock';
import { Collection } from './collection';
import { CommandError, ErrorCode } from './errors';

const VALID_COLLECTION = /^[^$\0]+$/;

interface OpenCommit {
  stamp: TransactionStamp;
  ts: ReturnType<ClusterClock['advance']>;
  wall: Date;
  nextIndex: number;
}

export class Store {
  readonly clock = new ClusterClock();
  private readonly databases = new Map<string, Map<string, Collection>>();
  private listeners: ChangeListener[] = [];
  private commit: OpenCommit | null = null;
  /** while the store is refilled from disk (reload), changes are neither stamped nor reported */
  private reloading = false;
  private readonly record: ChangeRecorder = (change) => {
    if (this.reloading) return;
    const commit = this.commit;
    const logged = commit
      ? {
          ...change,
          ts: commit.ts,
          wall: commit.wall,
          txn: commit.stamp,
          txnOpIndex: commit.nextIndex++,
        }
      : { ...change, ts: this.clock.advance(), wall: new Date() };
    for (const listener of this.listeners) listener(logged);
  };

  /** Reports every later change to `listener` (after those observing already); returns how to stop. */
  observe(listener: ChangeListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((other) => other !== listener);
    };
  }

  /** Runs `apply`; the changes it makes are logged as one transaction's commit (see above). */
  commitAtOnce<T>(stamp: TransactionStamp, apply: () => T): T {
    if (this.commit) throw new Error('commitAtOnce does not nest');
    this.commit = { stamp, ts: this.clock.advance(), wall: new Date(), nextIndex: 0 };
    try {
      return apply();
    } finally {
      this.commit = null;
    }
  }

  /**
   * Empties the store and refills it with `refill`, reporting nothing meanwhile: the journal
   * reads the disk back after a failed write (state/journal.ts), and what it replays happened
   * before.
   */
  async reload(refill: () => Promise<void>): Promise<void> {
    this.databases.clear();
    this.reloading = true;
    try {
      await refill();
    } finally {
      this.reloading = false;
    }
  }

  databaseNames(): string[] {
    return [...this.databases.keys()];
  }

  collections(database: string): Collection[] {
    return [...(this.databases.get(database)?.values() ?? [])];
  }

  get(database: string, name: string): Collection | undefined {
    return this.databases.get(database)?.get(name);
  }

  /** The collection, created when missing; `created` tells which. */
  obtain(database: string, name: string): { collection: Collection; created: boolean } {
    const existing = this.get(database, name);
    if (existing) return { collection: existing, created: false };
    assertValidCollectionName(name);
    const collection = new Collection(database, name, this.record);
    this.collectionsOf(database).set(name, collection);
    this.record({ op: 'createCollection', db: database, coll: name });
    return { collection, created: true };
  }

  /**
   * Moves a collection to a new name in the same database; with `dropTarget`, a collection
   * already there is dropped as part of the rename (one change, as mongod's one oplog entry).
   * Returns false when the source is missing.
   */
  rename(database: string, from: string, to: string, dropTarget = false): boolean {
    const collections = this.databases.get(database);
    const source = collections?.get(from);
    if (!collections || !source) return false;
    assertValidCollectionName(to);
    const replaced = dropTarget && collections.has(to);
    collections.delete(from);
    collections.set(to, source.renameTo(database, to));
    this.record({
      op: 'renameCollection',
      db: database,
      coll: from,
      to,
      ...(replaced && { dropTarget: true as const }),
    });
    return true;
  }

  drop(database: string, name: string): boolean {
    const collections = this.databases.get(database);
    if (!collections?.delete(name)) return false;
    if (collections.size === 0) this.databases.delete(database);
    this.record({ op: 'dropCollection', db: database, coll: name });
    return true;
  }

  dropDatabase(database: string): void {
    const collections = this.databases.get(database);
    if (!collections) return;
    for (const name of [...collections.keys()]) {
      collections.delete(name);
      this.record({ op: 'dropCollection', db: database, coll: name });
    }
    this.databases.delete(database);
    this.record({ op: 'dropDatabase', db: database });
  }

  private collectionsOf(database: string): Map<string, Collection> {
    let collections = this.databases.get(database);
    if (!collections) {
      collections = new Map();
      this.databases.set(database, collections);
    }
    return collections;
  }
}

function assertValidCollectionName(name: string): void {
  if (!VALID_COLLECTION.test(name) || name.length === 0) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid collection name: ${name}`);
  }
}
