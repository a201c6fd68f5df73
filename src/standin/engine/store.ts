/**
 * All databases of one stand-in server: database name → collection name → Collection. A
 * database exists while it holds at least one collection, as in mongod. Collections are created
 * implicitly by writes and index creation. Every change is reported, once applied, to the
 * listener set with `observe` (the journal); see changes.ts.
 */
import { calculateObjectSize } from 'bson';
import { Change, ChangeListener } from './changes';
import { Collection } from './collection';
import { CommandError, ErrorCode } from './errors';

const VALID_COLLECTION = /^[^$\0]+$/;
/** changes of one atomic unit beyond this many BSON bytes go out one by one (a record is BSON) */
const MAX_UNIT_BYTES = 12 * 1024 * 1024;

export class Store {
  private readonly databases = new Map<string, Map<string, Collection>>();
  private listener: ChangeListener = () => undefined;
  /** changes held back by `atomically`, reported as one when it ends */
  private held: Change[] | null = null;
  private readonly record: ChangeListener = (change) =>
    this.held ? this.held.push(change) : this.listener(change);

  /** Reports every later change to `listener` (replaces the previous one). */
  observe(listener: ChangeListener): void {
    this.listener = listener;
  }

  /**
   * Runs `apply` (synchronous) and reports every change it made as one `transaction` change,
   * which the journal writes as one record: a crash keeps all of them or none. Changes above
   * MAX_UNIT_BYTES together are reported one by one (a journal record is one BSON document).
   */
  atomically<T>(apply: () => T): T {
    const outer = this.held;
    this.held = [];
    try {
      return apply();
    } finally {
      const changes = this.held;
      this.held = outer;
      if (changes.length === 1 || calculateObjectSize({ changes }) > MAX_UNIT_BYTES)
        changes.forEach(this.record);
      else if (changes.length > 1) this.record({ op: 'transaction', changes });
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
    if (!VALID_COLLECTION.test(name) || name.length === 0) {
      throw new CommandError(ErrorCode.InvalidNamespace, `Invalid collection name: ${name}`);
    }
    let collections = this.databases.get(database);
    if (!collections) {
      collections = new Map();
      this.databases.set(database, collections);
    }
    const collection = new Collection(database, name, this.record);
    collections.set(name, collection);
    this.record({ op: 'createCollection', db: database, coll: name });
    return { collection, created: true };
  }

  drop(database: string, name: string): boolean {
    const collections = this.databases.get(database);
    if (!collections?.delete(name)) return false;
    if (collections.size === 0) this.databases.delete(database);
    this.record({ op: 'dropCollection', db: database, coll: name });
    return true;
  }

  dropDatabase(database: string): void {
    if (this.databases.delete(database)) this.record({ op: 'dropDatabase', db: database });
  }
}
