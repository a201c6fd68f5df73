/**
 * One collection's documents and indexes. Documents live in a Map keyed by the canonical key of
 * their `_id` (insertion order = natural order), plus an array of `_id`s kept sorted in BSON
 * order so `_id` lookups never scan and `sort({_id: -1}).limit(1)` reads one end. Every method
 * is synchronous: a read-modify-write of a document completes before any other command runs,
 * which is what makes each command atomic per document. Stored documents are never mutated in
 * place (updates replace them), so references handed out stay valid snapshots. Each applied
 * change is reported to `record` (the store, which stamps it, see changes.ts); refused ones are
 * not. With `changeStreamPreAndPostImages` enabled, each replace and remove also reports the
 * pre-image (a reference: documents are never mutated). Before each change it tells
 * `concurrency` (concurrency.ts), which may make it wait for an open transaction, keeps
 * pre-images for open snapshots and the undo of the running command.
 */
import { ObjectId } from 'bson';
import { ChangeRecorder, DocumentWrite } from './changes';
import { Concurrency } from './concurrency';
import { CommandError, ErrorCode } from './errors';
import { assertStorableId } from './field-names';
import { Index, IndexSpec, sameSpec } from './indexes';
import { compareValues, Document, formatDocument, indexKeyOf, withIdFirst } from './values';
import type { CollectionView } from './views';

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
  private imagesEnabled = false;

  constructor(
    readonly database: string,
    readonly name: string,
    private readonly record: ChangeRecorder = () => undefined,
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

  /** Whether writes record pre- and post-images for change streams (collMod / create option). */
  get preAndPostImages(): boolean {
    return this.imagesEnabled;
  }

  setPreAndPostImages(enabled: boolean): void {
    this.imagesEnabled = enabled;
    this.record({
      op: 'collectionOptions',
      db: this.database,
      coll: this.name,
      changeStreamPreAndPostImages: enabled,
    });
  }

  /** Renames this collection's namespace in place (the store moves it; see Store.rename). */
  renameTo(database: string, name: string): Collection {
    const moved = new Collection(database, name, this.record, this.concurrency);
    moved.copyFrom(this);
    return moved;
  }

  private copyFrom(other: Collection): void {
    for (const [key, doc] of other.documents) this.documents.set(key, doc);
    this.idsInOrder.push(...other.idsInOrder);
    this.indexList.length = 0;
    for (const index of other.indexList) {
      const copy = new Index(index.spec, this.namespace);
      for (const [key, owner] of index.owners) copy.owners.set(key, owner);
      this.indexList.push(copy);
    }
    this.imagesEnabled = other.imagesEnabled;
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

  /** Every stored document with the canonical key of its `_id`, in natural order. */
  entries(): IterableIterator<[string, Document]> {
    return this.documents.entries();
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
    this.change(idKey, undefined, doc, this.uniqueKeys(doc, undefined));
    this.record({ op: 'put', db: this.database, coll: this.name, doc, event: 'insert' });
    return doc;
  }

  /**
   * Replaces a stored document by one with the same `_id`; throws E11000 on a unique conflict.
   * `write` says what kind of write it was (absent when replaying the journal).
   */
  replace(current: Document, next: Document, write?: DocumentWrite): void {
    const idKey = indexKeyOf(current._id);
    const stored = this.documents.get(idKey);
    this.change(idKey, stored, next, this.uniqueKeys(next, idKey));
    this.record({
      op: 'put',
      db: this.database,
      coll: this.name,
      doc: next,
      ...write,
      ...(this.imagesEnabled && { before: current, images: true }),
    });
  }

  remove(doc: Document): void {
    const idKey = indexKeyOf(doc._id);
    const stored = this.documents.get(idKey);
    if (!stored) return;
    this.change(idKey, stored, undefined, []);
    this.record({
      op: 'remove',
      db: this.database,
      coll: this.name,
      id: doc._id,
      ...(this.imagesEnabled && { before: doc, images: true }),
    });
  }

  /**
   * One checked change of one document (`keys`: the unique keys `after` takes): waits out
   * transactions holding the document or a key it takes or frees, then stores it, undoably.
   */
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
  }

  /** Replaces `before` by `after` under `idKey` (either may be absent), unique keys included. */
  private swap(
    idKey: string,
    before: Document | undefined,
    after: Document | undefined,
    keys = after ? this.uniqueKeys(after, idKey) : [],
  ): void {
    if (before) {
      for (const index of this.uniqueIndexes()) {
        const key = index.keyOf(before);
        if (key !== null && index.owners.get(key) === idKey) index.owners.delete(key);
      }
    }
    if (after) {
      this.documents.set(idKey, after);
      if (!before) this.insertId(after._id, idKey);
    } else {
      this.documents.delete(idKey);
      const position = this.findIdPosition(before!._id);
      if (this.idsInOrder[position]?.key === idKey) this.idsInOrder.splice(position, 1);
    }
    for (const [index, key] of keys) index.owners.set(key, idKey);
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
