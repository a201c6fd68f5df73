/**
 * All databases of one stand-in server: database name → collection name → Collection. A
 * database exists while it holds at least one collection, as in mongod. Collections are created
 * implicitly by writes and index creation. Every change is reported, once applied, to the
 * listener set with `observe` (the journal); see changes.ts.
 *
 * A command that may have to wait for an open transaction (concurrency.ts) runs between
 * `beginCommand` and `endCommand`: its changes are held back meanwhile, so when it must wait,
 * `rollbackCommand` undoes it without anyone (journal, change streams) having seen it. A
 * transaction's commit runs inside `atomically`: its changes reach the listener as one
 * `transaction` change, which the journal writes as one record (all of it or nothing survives
 * a crash).
 */
import { Change, ChangeListener } from './changes';
import { Collection } from './collection';
import { Concurrency } from './concurrency';
import { CommandError, ErrorCode } from './errors';
import type { StoreView } from './views';

const VALID_COLLECTION = /^[^$\0]+$/;

export function assertValidCollectionName(name: string): void {
  if (!VALID_COLLECTION.test(name) || name.length === 0) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid collection name: ${name}`);
  }
}

export class Store implements StoreView {
  readonly concurrency = new Concurrency();
  private readonly databases = new Map<string, Map<string, Collection>>();
  private listener: ChangeListener = () => undefined;
  /** changes held back: those of a command that may yet be undone, or of a commit */
  private held: Change[] | null = null;
  private readonly record: ChangeListener = (change) =>
    this.held ? this.held.push(change) : this.listener(change);

  /** Reports every later change to `listener` (replaces the previous one). */
  observe(listener: ChangeListener): void {
    this.listener = listener;
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
    this.concurrency.beforeCatalogChange(`${database}.${name}`, true);
    let collections = this.databases.get(database);
    if (!collections) {
      collections = new Map();
      this.databases.set(database, collections);
    }
    const collection = new Collection(database, name, this.record, this.concurrency);
    collections.set(name, collection);
    this.concurrency.onUndo(() => this.remove(database, name));
    this.record({ op: 'createCollection', db: database, coll: name });
    return { collection, created: true };
  }

  drop(database: string, name: string): boolean {
    const collection = this.get(database, name);
    if (!collection) return false;
    this.concurrency.beforeCatalogChange(collection.namespace, true);
    this.remove(database, name);
    this.concurrency.onUndo(() => this.put(collection));
    this.record({ op: 'dropCollection', db: database, coll: name });
    return true;
  }

  dropDatabase(database: string): void {
    const collections = this.collections(database);
    if (collections.length === 0) return;
    for (const collection of collections) {
      this.concurrency.beforeCatalogChange(collection.namespace, true);
    }
    this.databases.delete(database);
    this.concurrency.onUndo(() => collections.forEach((collection) => this.put(collection)));
    this.record({ op: 'dropDatabase', db: database });
  }

  private remove(database: string, name: string): void {
    const collections = this.databases.get(database);
    if (!collections?.delete(name)) return;
    if (collections.size === 0) this.databases.delete(database);
  }

  private put(collection: Collection): void {
    let collections = this.databases.get(collection.database);
    if (!collections) this.databases.set(collection.database, (collections = new Map()));
    collections.set(collection.name, collection);
  }

  // ---- commands beside transactions, and commits ----

  /** Starts a command outside transactions (see the header). */
  beginCommand(): void {
    this.concurrency.beginCommand();
    this.held = [];
  }

  /** Ends it: what it changed goes to the listener. */
  endCommand(): void {
    this.concurrency.endCommand();
    const held = this.held ?? [];
    this.held = null;
    for (const change of held) this.listener(change);
  }

  /** Undoes the running command (it must wait for a transaction); nobody saw its changes. */
  rollbackCommand(): void {
    this.concurrency.rollback();
    this.held = null;
  }

  /** Runs `apply` and reports every change it made as one `transaction` change. */
  atomically(apply: () => void): void {
    const outer = this.held;
    this.held = [];
    try {
      apply();
    } finally {
      const changes = this.held;
      this.held = outer;
      if (changes.length > 0) this.record({ op: 'transaction', changes });
    }
  }
}
