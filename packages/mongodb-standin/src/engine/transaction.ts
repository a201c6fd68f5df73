/**
 * A multi-document transaction's private view of the store, with mongod's snapshot isolation:
 *
 * - Reads see the store as it was when the transaction started (its snapshot, kept by
 *   concurrency.ts as pre-images of what changed since) plus the transaction's own writes.
 * - Writes stay in the transaction (`TransactionCollection.writes`, the latest image of each
 *   document it wrote, or null when removed, for its reads; `steps`, every write in order)
 *   until `commit` replays the steps onto the live store in one synchronous step, reported as
 *   one commit (store.commitAtOnce: one cluster time, one journal record, each write's own
 *   change event).
 * - Conflicts are found when a write is made, as mongod finds them (first writer wins):
 *   writing a document another open transaction wrote, or one committed after the snapshot,
 *   or taking or freeing a unique key another open transaction holds or a later commit took,
 *   is WriteConflict (112) with TransientTransactionError; the caller then aborts the
 *   transaction. A duplicate within the snapshot is E11000, as outside transactions.
 * - Writes outside transactions that meet this transaction's locks wait for it to end
 *   (concurrency.ts); reads never wait.
 *
 * Collections a transaction creates (implicitly by a write, or by `create`/`createIndexes`)
 * are private Collections until commit; indexes on existing collections, drops and other
 * catalog changes are refused, as mongod refuses them in a transaction.
 */
import type { DocumentWrite, TransactionStamp } from './changes';
import type { ClusterClock } from './cluster-clock';
import { Collection, normalizeForInsert } from './collection';
import { documentLockKey, LockOwner, uniqueLockKey } from './concurrency';
import { CommandError, ErrorCode, transientTransactionError } from './errors';
import { Index, IndexSpec } from './indexes';
import { assertCreatableCollection } from './namespaces';
import { Store } from './store';
import { compareValues, Document, indexKeyOf } from './values';
import type { CollectionView, StoreView } from './views';

function writeConflict(): CommandError {
  return transientTransactionError(
    ErrorCode.WriteConflict,
    'Caused by :: Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.',
  );
}

function notInTransaction(what: string): CommandError {
  return new CommandError(
    ErrorCode.OperationNotSupportedInTransaction,
    `Cannot ${what} in a multi-document transaction.`,
  );
}

export class Transaction implements LockOwner, StoreView {
  readonly ended: Promise<void>;
  readonly snapshot: number;
  private endNow!: () => void;
  private open = true;
  private readonly views = new Map<string, TransactionCollection>();
  /** collections this transaction created, invisible to others until commit */
  private readonly created = new Map<string, Collection>();

  constructor(
    private readonly store: Store,
    readonly id: number,
    private readonly stamp: TransactionStamp,
  ) {
    this.ended = new Promise((resolve) => (this.endNow = resolve));
    this.snapshot = store.concurrency.openSnapshot(this);
  }

  get isOpen(): boolean {
    return this.open;
  }

  get clock(): ClusterClock {
    return this.store.clock;
  }

  databaseNames(): string[] {
    const names = new Set(this.store.databaseNames());
    for (const collection of this.created.values()) names.add(collection.database);
    return [...names];
  }

  collections(database: string): CollectionView[] {
    const views: CollectionView[] = [];
    for (const live of this.store.collections(database)) views.push(this.get(database, live.name)!);
    for (const created of this.created.values())
      if (created.database === database) views.push(created);
    return views;
  }

  get(database: string, name: string): CollectionView | undefined {
    const namespace = `${database}.${name}`;
    const existing = this.created.get(namespace) ?? this.views.get(namespace);
    if (existing) return existing;
    const { concurrency } = this.store;
    if (concurrency.catalogChangedSince(namespace, this.snapshot)) {
      throw transientTransactionError(
        ErrorCode.SnapshotUnavailable,
        `Unable to read from a snapshot due to pending collection catalog changes to ${namespace}; please retry the operation.`,
      );
    }
    const live = this.store.get(database, name);
    if (!live) return undefined;
    concurrency.lockNamespace(this, namespace);
    const view = new TransactionCollection(this, live, this.store);
    this.views.set(namespace, view);
    return view;
  }

  obtain(database: string, name: string): { collection: CollectionView; created: boolean } {
    const existing = this.get(database, name);
    if (existing) return { collection: existing, created: false };
    assertCreatableCollection(database, name);
    const namespace = `${database}.${name}`;
    const { concurrency } = this.store;
    if (concurrency.namespaceHolder(this, namespace)) throw writeConflict();
    concurrency.lockNamespace(this, namespace);
    const collection = new Collection(database, name);
    this.created.set(namespace, collection);
    return { collection, created: true };
  }

  drop(): boolean {
    throw notInTransaction('drop a collection');
  }

  rename(): boolean {
    throw notInTransaction('rename a collection');
  }

  dropDatabase(): void {
    throw notInTransaction('drop a database');
  }

  /** Whether the collection was created by this transaction (indexes may be built on it). */
  createdHere(collection: CollectionView): boolean {
    return this.created.get(collection.namespace) === collection;
  }

  /** Applies every write to the live store in one step and one journal record, then ends. */
  commit(): void {
    if (!this.open) throw new Error('commit of an ended transaction');
    this.store.commitAtOnce(this.stamp, () =>
      this.store.concurrency.applyAs(this, () => {
        for (const created of this.created.values()) {
          const { collection } = this.store.obtain(created.database, created.name);
          if (created.preAndPostImages) collection.setPreAndPostImages(true);
          for (const index of created.indexes.slice(1)) collection.addIndex(index.spec);
          for (const doc of created.all()) collection.insert(doc);
        }
        for (const view of this.views.values()) view.applyTo();
      }),
    );
    this.end();
  }

  /** Drops every write and ends; nothing of the transaction was ever visible. */
  abort(): void {
    if (this.open) this.end();
  }

  private end(): void {
    this.open = false;
    this.store.concurrency.release(this);
    this.endNow();
  }
}

/** One existing collection as a transaction sees it: its snapshot plus the writes made. */
class TransactionCollection implements CollectionView {
  /** latest image of each document written (null: removed) */
  private readonly writes = new Map<string, Document | null>();
  /** every write in order, replayed at commit */
  private readonly steps: Array<() => void> = [];

  constructor(
    private readonly transaction: Transaction,
    private readonly live: Collection,
    private readonly store: Store,
  ) {}

  get database(): string {
    return this.live.database;
  }

  get name(): string {
    return this.live.name;
  }

  get namespace(): string {
    return this.live.namespace;
  }

  get indexes(): readonly Index[] {
    return this.live.indexes;
  }

  get size(): number {
    let count = 0;
    for (const _ of this.all()) count++;
    return count;
  }

  private changed(): Map<string, Document | undefined> {
    return this.store.concurrency.changedSince(this.namespace, this.transaction.snapshot);
  }

  *all(): Generator<Document> {
    const changed = this.changed();
    for (const [idKey, doc] of this.live.entries()) {
      const visible = this.writes.has(idKey)
        ? this.writes.get(idKey)
        : changed.has(idKey)
          ? changed.get(idKey)
          : doc;
      if (visible) yield visible;
    }
    // removed from the live collection since the snapshot, or inserted by this transaction
    for (const [idKey, doc] of changed) {
      if (doc && !this.writes.has(idKey) && !this.live.byIdKey(idKey)) yield doc;
    }
    for (const [idKey, doc] of this.writes) if (doc && !this.live.byIdKey(idKey)) yield doc;
  }

  byId(id: unknown): Document | undefined {
    return this.visible(indexKeyOf(id));
  }

  private visible(idKey: string): Document | undefined {
    if (this.writes.has(idKey)) return this.writes.get(idKey) ?? undefined;
    const image = this.store.concurrency.imageAt(this.namespace, idKey, this.transaction.snapshot);
    return image ? image.doc : this.live.byIdKey(idKey);
  }

  inIdOrder(direction: 1 | -1): Iterable<Document> {
    if (this.writes.size === 0 && this.changed().size === 0) return this.live.inIdOrder(direction);
    return [...this.all()].sort((a, b) => direction * compareValues(a._id, b._id));
  }

  uniqueOwner(index: Index, key: string): Document | undefined {
    for (const doc of this.writes.values()) if (doc && index.keyOf(doc) === key) return doc;
    const live = this.live.uniqueOwner(index, key);
    if (live) {
      const visible = this.visible(indexKeyOf(live._id));
      if (visible && index.keyOf(visible) === key) return visible;
    }
    for (const [idKey, doc] of this.changed()) {
      if (doc && !this.writes.has(idKey) && index.keyOf(doc) === key) return doc;
    }
    return undefined;
  }

  insert(input: Document): Document {
    const doc = normalizeForInsert(input);
    const idKey = indexKeyOf(doc._id);
    if (this.visible(idKey)) throw this.live.indexes[0].duplicateKeyError(doc);
    this.write(idKey, undefined, doc);
    this.steps.push(() => this.live.insert(doc));
    return doc;
  }

  replace(current: Document, next: Document, write?: DocumentWrite): void {
    const idKey = indexKeyOf(current._id);
    this.write(idKey, current, next);
    this.steps.push(() => this.live.replace(this.live.byIdKey(idKey)!, next, write));
  }

  remove(doc: Document): void {
    const idKey = indexKeyOf(doc._id);
    if (!this.visible(idKey)) return;
    this.write(idKey, doc, null);
    this.steps.push(() => this.live.remove(this.live.byIdKey(idKey)!));
  }

  addIndex(spec: IndexSpec): boolean {
    throw notInTransaction(
      `create new indexes (${spec.name}) on the existing collection ${this.namespace}`,
    );
  }

  dropIndex(): boolean {
    throw notInTransaction(`drop indexes of ${this.namespace}`);
  }

  get preAndPostImages(): boolean {
    return this.live.preAndPostImages;
  }

  setPreAndPostImages(): void {
    throw notInTransaction(`change the options of ${this.namespace}`);
  }

  /**
   * Replays the writes onto the live collection (the transaction's commit). Each was valid in
   * the transaction's view when made, and the live collection differs from that view only in
   * documents and unique keys the transaction neither locked nor took, so each applies.
   */
  applyTo(): void {
    for (const step of this.steps) step();
  }

  private uniqueIndexes(): Index[] {
    return this.live.indexes.filter((index) => index.unique && index.name !== '_id_');
  }

  /**
   * Checks a write against the snapshot (E11000) and against others (WriteConflict), takes
   * its locks, and keeps it: the document, and every unique key it frees or takes.
   */
  private write(idKey: string, before: Document | undefined, after: Document | null): void {
    const keys: Array<[Index, string]> = [];
    for (const index of this.uniqueIndexes()) {
      const key = after && index.keyOf(after);
      if (!key) continue;
      const owner = this.uniqueOwner(index, key);
      if (owner && indexKeyOf(owner._id) !== idKey) throw index.duplicateKeyError(after);
      keys.push([index, key]);
    }
    const { concurrency } = this.store;
    const { snapshot } = this.transaction;
    if (concurrency.imageAt(this.namespace, idKey, snapshot)) throw writeConflict();
    if (concurrency.lock(this.transaction, 'document', documentLockKey(this.namespace, idKey)))
      throw writeConflict();
    for (const [index, key] of keys) {
      // a live owner the snapshot does not show as holding the key committed after it
      const live = this.live.uniqueOwner(index, key);
      const liveKey = live && indexKeyOf(live._id);
      if (liveKey && liveKey !== idKey && !this.writes.has(liveKey)) throw writeConflict();
    }
    const freed = before
      ? this.uniqueIndexes().flatMap((index) => {
          const key = index.keyOf(before);
          return key === null ? [] : [[index, key] as [Index, string]];
        })
      : [];
    for (const [index, key] of [...keys, ...freed]) {
      const lockKey = uniqueLockKey(this.namespace, index.name, key);
      if (concurrency.lock(this.transaction, 'unique', lockKey)) throw writeConflict();
    }
    this.writes.set(idKey, after);
  }
}
