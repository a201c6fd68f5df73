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
 * so a change stream reports them as one commit; they reach the listeners together, as one
 * `transaction` change, which the journal writes as one record (a crash keeps all or none).
 *
 * A command that may have to wait for an open transaction (concurrency.ts) runs between
 * `beginCommand` and `endCommand`: its changes are held back meanwhile, so when it must wait,
 * `rollbackCommand` undoes it without any listener having seen it.
 */
import {
  ChangeListener,
  ChangeRecorder,
  LoggedChange,
  StoreChange,
  TransactionStamp,
} from './changes';
import { ClusterClock } from './cluster-clock';
import { Collection } from './collection';
import { Concurrency } from './concurrency';
import { assertCreatableCollection } from './namespaces';
import type { StoreView } from './views';

interface OpenCommit {
  stamp: TransactionStamp;
  ts: ReturnType<ClusterClock['advance']>;
  wall: Date;
  nextIndex: number;
  changes: LoggedChange[];
}

export class Store implements StoreView {
  readonly clock = new ClusterClock();
  readonly concurrency = new Concurrency();
  /** changes of the running command, held back until it ends (see above) */
  private held: StoreChange[] | null = null;
  private readonly databases = new Map<string, Map<string, Collection>>();
  private listeners: ChangeListener[] = [];
  private commit: OpenCommit | null = null;
  /** while the store is refilled from disk (reload), changes are neither stamped nor reported */
  private reloading = false;
  private readonly record: ChangeRecorder = (change) => {
    if (this.reloading) return;
    const commit = this.commit;
    if (commit) {
      commit.changes.push({
        ...change,
        ts: commit.ts,
        wall: commit.wall,
        txn: commit.stamp,
        txnOpIndex: commit.nextIndex++,
      });
      return;
    }
    this.deliver({ ...change, ts: this.clock.advance(), wall: new Date() });
  };

  private deliver(change: StoreChange): void {
    if (this.held) this.held.push(change);
    else for (const listener of this.listeners) listener(change);
  }

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
    const commit: OpenCommit = {
      stamp,
      ts: this.clock.advance(),
      wall: new Date(),
      nextIndex: 0,
      changes: [],
    };
    this.commit = commit;
    try {
      return apply();
    } finally {
      this.commit = null;
      if (commit.changes.length > 0) {
        this.deliver({
          op: 'transaction',
          changes: commit.changes,
          ts: commit.ts,
          wall: commit.wall,
        });
      }
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
    assertCreatableCollection(database, name);
    this.concurrency.beforeCatalogChange(`${database}.${name}`, true);
    const collection = new Collection(database, name, this.record, this.concurrency);
    this.collectionsOf(database).set(name, collection);
    this.concurrency.onUndo(() => this.detach(database, name));
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
    assertCreatableCollection(database, to);
    this.concurrency.beforeCatalogChange(`${database}.${from}`, true);
    this.concurrency.beforeCatalogChange(`${database}.${to}`, true);
    const replaced = dropTarget && collections.get(to);
    collections.delete(from);
    collections.set(to, source.renameTo(database, to));
    this.concurrency.onUndo(() => {
      if (replaced) collections.set(to, replaced);
      else collections.delete(to);
      collections.set(from, source);
    });
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
    const collection = this.get(database, name);
    if (!collection) return false;
    this.concurrency.beforeCatalogChange(collection.namespace, true);
    this.detach(database, name);
    this.concurrency.onUndo(() => this.collectionsOf(database).set(name, collection));
    this.record({ op: 'dropCollection', db: database, coll: name });
    return true;
  }

  dropDatabase(database: string): void {
    const collections = this.databases.get(database);
    if (!collections) return;
    for (const collection of collections.values()) {
      this.concurrency.beforeCatalogChange(collection.namespace, true);
    }
    const dropped = new Map(collections);
    this.concurrency.onUndo(() => this.databases.set(database, dropped));
    for (const name of [...collections.keys()]) {
      collections.delete(name);
      this.record({ op: 'dropCollection', db: database, coll: name });
    }
    this.databases.delete(database);
    this.record({ op: 'dropDatabase', db: database });
  }

  private detach(database: string, name: string): void {
    const collections = this.databases.get(database);
    if (!collections?.delete(name)) return;
    if (collections.size === 0) this.databases.delete(database);
  }

  // ---- commands beside transactions ----

  /** Starts a command outside transactions (see the header). */
  beginCommand(): void {
    this.concurrency.beginCommand();
    this.held = [];
  }

  /** Ends it: what it changed goes to the listeners. */
  endCommand(): void {
    this.concurrency.endCommand();
    const held = this.held ?? [];
    this.held = null;
    for (const change of held) for (const listener of this.listeners) listener(change);
  }

  /** Undoes the running command (it must wait for a transaction); no listener saw it. */
  rollbackCommand(): void {
    this.held = null;
    this.concurrency.rollback();
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
