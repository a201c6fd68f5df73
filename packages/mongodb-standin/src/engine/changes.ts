/**
 * What a write changed, at the engine's level: the after-image of each document written, the
 * `_id` of each one removed, and collection and index definitions made, renamed or dropped. The
 * store stamps each change with the cluster time (cluster-clock.ts) and reports it to its
 * listeners after it has been applied (a refused write reports nothing): the journal
 * (state/journal.ts) records exactly what an acknowledged command did, and the change history
 * (state/change-history.ts) is what change streams read. `applyChange` (./apply-change.ts)
 * replays one onto a store. This file holds only the types, so the store, its collections and the
 * journal share them without importing each other. A committed transaction reaches the
 * listeners as one `transaction` change holding its changes (apply-change.ts `eachChange`).
 *
 * A document write also says what kind of write it was, as mongod's oplog does: `insert`,
 * `update` (with mongod's update description, update-description.ts) or `replace`; and, when
 * the collection has `changeStreamPreAndPostImages` enabled at that moment, the pre-image
 * (`before`) and that images were kept (`images`). Images are recorded only then, as in mongod,
 * so a stream can offer them honestly.
 */
import type { Long, Timestamp } from 'bson';
import type { IndexSpec } from './indexes';
import type { Document } from './values';

export interface UpdateDescription {
  updatedFields: Document;
  removedFields: string[];
  truncatedArrays: Array<{ field: string; newSize: number }>;
}

export type DocumentWrite =
  | { event: 'insert' }
  | { event: 'update'; updateDescription: UpdateDescription }
  | { event: 'replace' };

export type Change =
  | ({ op: 'put'; db: string; coll: string; doc: Document; before?: Document; images?: true } & (
      DocumentWrite | { event?: undefined }
    ))
  | { op: 'remove'; db: string; coll: string; id: unknown; before?: Document; images?: true }
  | { op: 'createCollection'; db: string; coll: string }
  | { op: 'collectionOptions'; db: string; coll: string; changeStreamPreAndPostImages: boolean }
  /** `dropTarget`: a collection named `to` was dropped by the rename (no drop of its own) */
  | { op: 'renameCollection'; db: string; coll: string; to: string; dropTarget?: true }
  | { op: 'dropCollection'; db: string; coll: string }
  | { op: 'dropDatabase'; db: string }
  | { op: 'createIndex'; db: string; coll: string; spec: IndexSpec }
  | { op: 'dropIndex'; db: string; coll: string; name: string };

/** The transaction a change was committed by (its events carry lsid and txnNumber). */
export interface TransactionStamp {
  lsid: Document;
  txnNumber: Long;
}

/**
 * A change as applied: its cluster time, wall time, and, for a transaction's changes (which
 * share one cluster time), the transaction and the change's position within it.
 */
export type LoggedChange = Change & {
  ts: Timestamp;
  wall: Date;
  txn?: TransactionStamp;
  txnOpIndex?: number;
};

/** A committed transaction's changes in order, delivered together: one journal record. */
export interface CommittedTransaction {
  op: 'transaction';
  changes: LoggedChange[];
  ts: Timestamp;
  wall: Date;
}

/** What the store's listeners receive: a change, or a transaction's changes at once. */
export type StoreChange = LoggedChange | CommittedTransaction;

export type ChangeListener = (change: StoreChange) => void;

/** What a collection reports; the store stamps it (store.ts). */
export type ChangeRecorder = (change: Change) => void;
