/**
 * What a write changed, at the engine's level: the after-image of each document written, the
 * `_id` of each one removed, and collection and index definitions made or dropped. The store
 * reports each change to its listener after it has been applied (a refused write reports
 * nothing), so the journal (state/journal.ts) records exactly what an acknowledged command
 * did, independent of which command did it. `applyChange` (./apply-change.ts) replays one onto a
 * store. This file holds only the types, so the store, its collections and the journal share them
 * without importing each other.
 */
import type { IndexSpec } from './indexes';
import type { Document } from './values';

export type Change =
  | { op: 'put'; db: string; coll: string; doc: Document }
  | { op: 'remove'; db: string; coll: string; id: unknown }
  | { op: 'createCollection'; db: string; coll: string }
  | { op: 'dropCollection'; db: string; coll: string }
  | { op: 'dropDatabase'; db: string }
  | { op: 'createIndex'; db: string; coll: string; spec: IndexSpec }
  | { op: 'dropIndex'; db: string; coll: string; name: string };

export type ChangeListener = (change: Change) => void;
