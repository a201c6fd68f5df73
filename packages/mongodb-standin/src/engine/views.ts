/**
 * What commands read and write through: a store and its collections as one reader sees them.
 * Outside a transaction that is the live Store and its Collections; inside one it is the
 * transaction's view (transaction.ts): its snapshot plus its own writes, which checks every
 * write for conflicts and keeps it private until commit. Commands are written against these
 * interfaces only, so they run unchanged in either.
 */
import type { DocumentWrite } from './changes';
import type { ClusterClock } from './cluster-clock';
import type { Index, IndexSpec } from './indexes';
import type { Document } from './values';

export interface CollectionView {
  readonly database: string;
  readonly name: string;
  readonly namespace: string;
  readonly size: number;
  readonly indexes: readonly Index[];
  /** natural order */
  all(): Iterable<Document>;
  byId(id: unknown): Document | undefined;
  /** documents in `_id` order */
  inIdOrder(direction: 1 | -1): Iterable<Document>;
  /** the document holding `key` in the unique index `index` */
  uniqueOwner(index: Index, key: string): Document | undefined;
  insert(input: Document): Document;
  /** `write` says what kind of write it was (change streams report it) */
  replace(current: Document, next: Document, write?: DocumentWrite): void;
  remove(doc: Document): void;
  addIndex(spec: IndexSpec): boolean;
  dropIndex(name: string): boolean;
  /** whether writes record pre- and post-images for change streams */
  readonly preAndPostImages: boolean;
  setPreAndPostImages(enabled: boolean): void;
}

export interface StoreView {
  /** the server's cluster time */
  readonly clock: ClusterClock;
  databaseNames(): string[];
  collections(database: string): CollectionView[];
  get(database: string, name: string): CollectionView | undefined;
  /** the collection, created when missing; `created` tells which */
  obtain(database: string, name: string): { collection: CollectionView; created: boolean };
  drop(database: string, name: string): boolean;
  /** moves a collection to a new name in the same database (false when it is missing); with
   * `dropTarget` a collection already there is dropped as part of it */
  rename(database: string, from: string, to: string, dropTarget?: boolean): boolean;
  dropDatabase(database: string): void;
}
