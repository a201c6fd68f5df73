/**
 * All databases of one stand-in server: database name → collection name → Collection. A
 * database exists while it holds at least one collection, as in mongod. Collections are created
 * implicitly by writes and index creation. Every change is reported, once applied, to the
 * listener set with `observe` (the journal); see changes.ts.
 */
import { ChangeListener } from './changes';
import { Collection } from './collection';
import { CommandError, ErrorCode } from './errors';

const VALID_COLLECTION = /^[^$\0]+$/;

export class Store {
  private readonly databases = new Map<string, Map<string, Collection>>();
  private listener: ChangeListener = () => undefined;
  private readonly record: ChangeListener = (change) => this.listener(change);

  /** Reports every later change to `listener` (replaces the previous one). */
  observe(listener: ChangeListener): void {
    this.listener = listener;
  }

  /** Forgets every database without reporting it (the journal reloads what the disk holds). */
  clear(): void {
    this.databases.clear();
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
