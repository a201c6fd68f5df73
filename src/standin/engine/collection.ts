/**
 * One collection's documents and indexes. Documents live in a Map keyed by the canonical key of
 * their `_id` (insertion order = natural order), plus an array of `_id`s kept sorted in BSON
 * order so `_id` lookups never scan and `sort({_id: -1}).limit(1)` reads one end. Every method
 * is synchronous: a read-modify-write of a document completes before any other command runs,
 * which is what makes each command atomic per document. Stored documents are never mutated in
 * place (updates replace them), so references handed out stay valid snapshots. Each applied
 * change is reported to `record` (the store's listener, see changes.ts); refused ones are not.
 * Before each change it tells `concurrency` (concurrency.ts), which may make it wait for an open
 * transaction, keeps pre-images for open snapshots and the undo of the running command.
 */
import { ObjectId } from 'bson';
import { ChangeListener } from './changes';
import { Concurrency } from './concurrency';
import { CommandError, ErrorCode } from './errors';
import { assertStorableId } from './field-names';
import { Index, IndexSpec, sameSpec } from './indexes';
import { withIdFirst } from './update';
import type { CollectionView } from './views';
import { compareValues, Document, formatDocument, indexKeyOf } from './values';

/** A document as an insert stores it: `_id` first, an ObjectId one added when absent. */
export function normalizeForInsert(input: Document): Document {
  const doc = '_id' in input ? withIdFirst(input) : { _id: new ObjectId(), ...input };
  assertStorableId(doc._id);
  return doc;
}

export const ID_INDEX: IndexSpec = { name: '_id_', key: { _id: 1 } };

interface IdEntry {
  id: unknown;
  key: string;
}

export class Collection implements CollectionView {
  private readonly documents = new Map<string, Document>();
  private readonly idsInOrder: IdEntry[] = [];
  private readonly indexList: Index[];

  constructor(
    readonly database: string,
    readonly name: string,
    private readonly record: ChangeListener = () => undefined,
    private readonly concurrency = new Concurrency(),
  ) {
    this.indexList = [new Index(ID_INDEX, this.namespace)];
  }

  get namespace(): string {
    return `${this.database}.${this.name}`;
  }

  get size(): number {
    return this.documents.size;
  }

  get indexes(): readonly Index[] {
    return this.indexList;
  }

  /** Natural (insertion) order. */
  all(): IterableIterator<Document> {
    return this.documents.values();
  }

  byId(id: unknown): Document | undefined {
    return this.documents.get(indexKeyOf(id));
  }

  /** The document whose `_id` has the canonical key `idKey`. */
  byIdKey(idKey: string): Document | undefined {
    return this.documents.get(idKey);
  }

  /** Documents in `_id` order, ascending or descending, without sorting. */
  *inIdOrder(direction: 1 | -1): Generator<Document> {
    const ids = this.idsInOrder;
    if (direction === 1) for (let i = 0; i < ids.length; i++) yield this.documents.get(ids[i].key)!;
    else for (let i = ids.length - 1; i >= 0; i--) yield this.documents.get(ids[i].key)!;
  }

  /** Owner `_id` key of a unique-index key, for index-backed lookups. */
  uniqueOwner(index: Index, key: string): Document | undefined {
    const owner = index.owners.get(key);
    return owner === undefined ? undefined : this.documents.get(owner);
  }

  private uniqueIndexes(): Index[] {
    return this.indexList.filter((index) => index.unique && index.name !== '_id_');
  }

  /** Inserts a document (adding an ObjectId `_id` first when absent); throws E11000 on conflict. */
  insert(input: Document): Document {
    const doc = normalizeForInsert(input);
    const idKey = indexKeyOf(doc._id);
    if (this.documents.has(idKey)) throw this.indexList[0].duplicateKeyError(doc);
    const keys = this.uniqueKeys(doc, undefined);
    this.change(idKey, undefined, doc, keys);
    return doc;
  }

  /** Replaces a stored document by one with the same `_id`; throws E11000 on a unique conflict. */
  replace(current: Document, next: Document): void {
    const idKey = indexKeyOf(current._id);
    this.change(idKey, this.documents.get(idKey), next, this.uniqueKeys(next, idKey));
  }

  remove(doc: Document): void {
    const idKey = indexKeyOf(doc._id);
    const stored = this.documents.get(idKey);
    if (stored) this.change(idKey, stored, undefined, []);
  }

  /** Every stored document with the canonical key of its `_id`, in natural order. */
  entries(): IterableIterator<[string, Document]> {
    return this.documents.entries();
  }

  /**
   * Applies a committed transaction's final images (null: removed) in one step: every key the
   * old images held is released before any new image claims one, so swaps between documents
   * apply whatever order they were written in. The transaction checked every key already.
   */
  applyCommitted(images: ReadonlyMap<string, Document | null>): void {
    const steps: Array<[string, Document | undefined, Document | undefined]> = [];
    for (const [idKey, image] of images) {
      const before = this.documents.get(idKey);
      if (!before && !image) continue;
      this.concurrency.beforeDocumentWrite(this.namespace, idKey, before, []);
      steps.push([idKey, before, image ?? undefined]);
    }
    for (const [idKey, before] of steps) if (before) this.releaseKeys(idKey, before);
    for (const [idKey, before, after] of steps) {
      this.place(idKey, before, after);
      if (after)
        for (const [index, key] of this.uniqueKeys(after, idKey)) index.owners.set(key, idKey);
      this.report((after ?? before)!._id, after);
    }
  }

  /** One checked change of one document: waits out transactions, stores, reports, undoable. */
  private change(
    idKey: string,
    before: Document | undefined,
    after: Document | undefined,
    keys: Array<[Index, string]>,
  ): void {
    const touched = keys.map(([index, key]) => `${index.name}\u0000${key}`);
    if (before) {
      for (const index of this.uniqueIndexes()) {
        const key = index.keyOf(before);
        if (key !== null) touched.push(`${index.name}\u0000${key}`);
      }
    }
    this.concurrency.beforeDocumentWrite(this.namespace, idKey, before, touched);
    this.swap(idKey, before, after, keys);
    this.concurrency.onUndo(() => this.swap(idKey, after, before));
    this.report((after ?? before)!._id, after);
  }

  /** Replaces `before` by `after` under `idKey` (either may be absent), keys included. */
  private swap(
    idKey: string,
    before: Document | undefined,
    after: Document | undefined,
    keys = after ? this.uniqueKeys(after, idKey) : [],
  ): void {
    if (before) this.releaseKeys(idKey, before);
    this.place(idKey, before, after);
    for (const [index, key] of keys) index.owners.set(key, idKey);
  }

  private releaseKeys(idKey: string, doc: Document): void {
    for (const index of this.uniqueIndexes()) {
      const key = index.keyOf(doc);
      if (key !== null && index.owners.get(key) === idKey) index.owners.delete(key);
    }
  }

  private place(idKey: string, before: Document | undefined, after: Document | undefined): void {
    if (after) {
      this.documents.set(idKey, after);
      if (!before) this.insertId(after._id, idKey);
      return;
    }
    this.documents.delete(idKey);
    const position = this.findIdPosition(before!._id);
    if (this.idsInOrder[position]?.key === idKey) this.idsInOrder.splice(position, 1);
  }

  private report(id: unknown, after: Document | undefined): void {
    if (after) this.record({ op: 'put', db: this.database, coll: this.name, doc: after });
    else this.record({ op: 'remove', db: this.database, coll: this.name, id });
  }

  /** Unique keys `doc` would take, checked against other documents (`selfKey` may keep its own). */
  private uniqueKeys(doc: Document, selfKey: string | undefined): Array<[Index, string]> {
    const keys: Array<[Index, string]> = [];
    for (const index of this.uniqueIndexes()) {
      const key = index.keyOf(doc);
      if (key === null) continue;
      const owner = index.owners.get(key);
      if (owner !== undefined && owner !== selfKey) throw index.duplicateKeyError(doc);
      keys.push([index, key]);
    }
    return keys;
  }

  /** First position whose `_id` is not less than `id` (binary search). */
  private findIdPosition(id: unknown): number {
    let low = 0;
    let high = this.idsInOrder.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareValues(this.idsInOrder[middle].id, id) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private insertId(id: unknown, key: string): void {
    const ids = this.idsInOrder;
    if (ids.length === 0 || compareValues(ids[ids.length - 1].id, id) < 0) ids.push({ id, key });
    else ids.splice(this.findIdPosition(id), 0, { id, key });
  }

  /**
   * Adds an index; building a unique one over existing duplicates fails with E11000 and leaves
   * nothing behind. Returns false when an identical index already exists.
   */
  addIndex(spec: IndexSpec): boolean {
    const byName = this.indexList.find((index) => index.name === spec.name);
    if (byName) {
      if (sameSpec(byName.spec, spec)) return false;
      const sameKey = indexKeyOf(byName.spec.key) === indexKeyOf(spec.key);
      throw new CommandError(
        sameKey ? ErrorCode.IndexOptionsConflict : ErrorCode.IndexKeySpecsConflict,
        `An existing index has the same name as the requested index. Requested index: ${formatDocument(spec.key)}, existing index: ${formatDocument(byName.spec.key)}`,
      );
    }
    const byKey = this.indexList.find((index) => sameSpec(index.spec, spec));
    if (byKey)
      throw new CommandError(
        ErrorCode.IndexOptionsConflict,
        `Index already exists with a different name: ${byKey.name}`,
      );
    this.concurrency.beforeCatalogChange(this.namespace, false);
    const index = new Index(spec, this.namespace);
    if (index.unique) {
      for (const [idKey, doc] of this.documents) {
        const key = index.keyOf(doc);
        if (key === null) continue;
        if (index.owners.has(key)) throw index.duplicateKeyError(doc);
        index.owners.set(key, idKey);
      }
    }
    this.indexList.push(index);
    this.concurrency.onUndo(() => this.indexList.splice(this.indexList.indexOf(index), 1));
    this.record({ op: 'createIndex', db: this.database, coll: this.name, spec });
    return true;
  }

  dropIndex(name: string): boolean {
    const position = this.indexList.findIndex((index) => index.name === name);
    if (position <= 0) return false;
    this.concurrency.beforeCatalogChange(this.namespace, false);
    const [index] = this.indexList.splice(position, 1);
    this.concurrency.onUndo(() => this.indexList.splice(position, 0, index));
    this.record({ op: 'dropIndex', db: this.database, coll: this.name, name });
    return true;
  }
}
