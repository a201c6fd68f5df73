/**
 * What lets multi-document transactions (transaction.ts) run beside every other command on the
 * one live store, with mongod's snapshot isolation and first-writer-wins conflicts:
 *
 * - A version counter, advanced by every change applied to the live store. A transaction's
 *   snapshot is the version when it started.
 * - Pre-images: while any snapshot is open, the live collections report each document's image
 *   before every change (`beforeDocumentWrite`), tagged with the version the change made. A
 *   snapshot at S reads a document's first pre-image newer than S, or the live document when
 *   none is newer. Pre-images no open snapshot can read are dropped when a snapshot closes,
 *   and nothing is kept while none is open (the common case costs a counter increment).
 * - Locks held by open transactions: each document a transaction wrote (`ns + _id`), each
 *   unique-index key its writes took or freed, and each namespace it read, wrote or created.
 *   A write outside any transaction that meets one (or a drop, create or index change of such
 *   a namespace) throws `TransactionLockWait`, as mongod makes it wait until the transaction
 *   ends: the server undoes what that command had done so far (`beginCommand`/`rollback`),
 *   awaits `released` and runs it again.
 * - Catalog versions: a collection created or dropped after a snapshot cannot be read at it;
 *   the transaction gets SnapshotUnavailable (246), as from mongod.
 *
 * Conflict checks of a transaction's own writes (WriteConflict) are in transaction.ts; this
 * module holds only the shared bookkeeping, and is synchronous like the rest of the engine.
 */
import { Document } from './values';

/** An open transaction as the lock tables know it. */
export interface LockOwner {
  readonly id: number;
  /** resolves when the transaction commits or aborts */
  readonly ended: Promise<void>;
}

/** Thrown by a write outside a transaction that must wait for `owner` to end. */
export class TransactionLockWait extends Error {
  constructor(
    readonly owner: LockOwner,
    what: string,
  ) {
    super(`${what} is locked by an open transaction`);
  }
}

interface PreImage {
  /** the version the change made; the image is what a snapshot older than it reads */
  version: number;
  doc: Document | undefined;
}

export function documentLockKey(namespace: string, idKey: string): string {
  return `${namespace}\u0000${idKey}`;
}

export function uniqueLockKey(namespace: string, index: string, key: string): string {
  return `${namespace}\u0000${index}\u0000${key}`;
}

export class Concurrency {
  private version = 0;
  /** open snapshots: transaction id → its snapshot version */
  private readonly snapshots = new Map<number, number>();
  /** namespace → `_id` key → pre-images, oldest first */
  private readonly preImages = new Map<string, Map<string, PreImage[]>>();
  /** namespace → version of its latest create or drop, kept while snapshots are open */
  private readonly catalogVersions = new Map<string, number>();
  private readonly documentLocks = new Map<string, LockOwner>();
  private readonly uniqueLocks = new Map<string, LockOwner>();
  private readonly namespaceLocks = new Map<string, Set<LockOwner>>();
  /** the transaction whose commit is being applied: its own locks do not stop it */
  private applying: LockOwner | null = null;
  /** inverse steps of the running command, kept only while some transaction holds locks */
  private undo: Array<() => void> | null = null;

  get current(): number {
    return this.version;
  }

  openSnapshot(owner: LockOwner): number {
    this.snapshots.set(owner.id, this.version);
    return this.version;
  }

  /** Ends everything `owner` held: its snapshot, its locks; drops pre-images nobody can read. */
  release(owner: LockOwner): void {
    for (const locks of [this.documentLocks, this.uniqueLocks]) {
      for (const [key, holder] of locks) if (holder === owner) locks.delete(key);
    }
    for (const [namespace, holders] of this.namespaceLocks) {
      holders.delete(owner);
      if (holders.size === 0) this.namespaceLocks.delete(namespace);
    }
    if (!this.snapshots.delete(owner.id)) return;
    if (this.snapshots.size === 0) {
      this.preImages.clear();
      this.catalogVersions.clear();
      return;
    }
    const oldest = Math.min(...this.snapshots.values());
    for (const [namespace, byId] of this.preImages) {
      for (const [idKey, images] of byId) {
        const keep = images.filter((image) => image.version > oldest);
        if (keep.length === 0) byId.delete(idKey);
        else if (keep.length < images.length) byId.set(idKey, keep);
      }
      if (byId.size === 0) this.preImages.delete(namespace);
    }
  }

  /** Runs `apply` (a commit) with `owner`'s locks out of its own way. */
  applyAs(owner: LockOwner, apply: () => void): void {
    this.applying = owner;
    try {
      apply();
    } finally {
      this.applying = null;
    }
  }

  // ---- the live store reports here before each change ----

  /**
   * Before a live document changes: waits out a transaction holding it or one of the unique
   * keys it takes or frees (`uniqueKeys`, as `index\0key`), then keeps its pre-image.
   */
  beforeDocumentWrite(
    namespace: string,
    idKey: string,
    before: Document | undefined,
    uniqueKeys: Iterable<string>,
  ): void {
    if (this.documentLocks.size > 0 || this.uniqueLocks.size > 0) {
      this.assertFree(this.documentLocks.get(documentLockKey(namespace, idKey)), 'the document');
      for (const key of uniqueKeys) {
        this.assertFree(
          this.uniqueLocks.get(`${namespace}\u0000${key}`),
          `the unique key ${key.split('\u0000')[0]}`,
        );
      }
    }
    this.version++;
    if (this.snapshots.size === 0) return;
    let byId = this.preImages.get(namespace);
    if (!byId) this.preImages.set(namespace, (byId = new Map()));
    const images = byId.get(idKey);
    if (images) images.push({ version: this.version, doc: before });
    else byId.set(idKey, [{ version: this.version, doc: before }]);
  }

  /** Before a collection is created or dropped, or its indexes change. */
  beforeCatalogChange(namespace: string, createdOrDropped: boolean): void {
    for (const holder of this.namespaceLocks.get(namespace) ?? []) {
      this.assertFree(holder, `the collection ${namespace}`);
    }
    this.version++;
    if (!createdOrDropped || this.snapshots.size === 0) return;
    this.catalogVersions.set(namespace, this.version);
    this.preImages.delete(namespace);
  }

  private assertFree(holder: LockOwner | undefined, what: string): void {
    if (holder && holder !== this.applying) throw new TransactionLockWait(holder, what);
  }

  /** Records how to undo a step of the running command, should it have to wait. */
  onUndo(step: () => void): void {
    this.undo?.push(step);
  }

  // ---- a command outside any transaction ----

  /** Starts a command outside transactions; its steps are undoable while locks are held. */
  beginCommand(): void {
    const locked =
      this.documentLocks.size > 0 || this.uniqueLocks.size > 0 || this.namespaceLocks.size > 0;
    this.undo = locked ? [] : null;
  }

  endCommand(): void {
    this.undo = null;
  }

  /** Undoes the running command's steps, newest first (it met a lock and will run again). */
  rollback(): void {
    const steps = this.undo ?? [];
    this.undo = null;
    for (let i = steps.length - 1; i >= 0; i--) steps[i]();
  }

  // ---- what a transaction reads and locks ----

  /** Whether the namespace was created or dropped after `snapshot`. */
  catalogChangedSince(namespace: string, snapshot: number): boolean {
    return (this.catalogVersions.get(namespace) ?? -1) > snapshot;
  }

  /** The document's image at `snapshot` when it changed since; undefined when it did not. */
  imageAt(
    namespace: string,
    idKey: string,
    snapshot: number,
  ): { doc: Document | undefined } | undefined {
    const images = this.preImages.get(namespace)?.get(idKey);
    const image = images?.find((candidate) => candidate.version > snapshot);
    return image && { doc: image.doc };
  }

  /** Every document of the namespace changed since `snapshot`, with its image at it. */
  changedSince(namespace: string, snapshot: number): Map<string, Document | undefined> {
    const changed = new Map<string, Document | undefined>();
    for (const [idKey, images] of this.preImages.get(namespace) ?? []) {
      const image = images.find((candidate) => candidate.version > snapshot);
      if (image) changed.set(idKey, image.doc);
    }
    return changed;
  }

  /** The other transaction holding a document or unique-key lock, or null after taking it. */
  lock(owner: LockOwner, kind: 'document' | 'unique', key: string): LockOwner | null {
    const locks = kind === 'document' ? this.documentLocks : this.uniqueLocks;
    const holder = locks.get(key);
    if (holder && holder !== owner) return holder;
    locks.set(key, owner);
    return null;
  }

  lockNamespace(owner: LockOwner, namespace: string): void {
    let holders = this.namespaceLocks.get(namespace);
    if (!holders) this.namespaceLocks.set(namespace, (holders = new Set()));
    holders.add(owner);
  }

  /** A transaction other than `owner` holding the namespace, if any. */
  namespaceHolder(owner: LockOwner, namespace: string): LockOwner | undefined {
    for (const holder of this.namespaceLocks.get(namespace) ?? []) {
      if (holder !== owner) return holder;
    }
    return undefined;
  }
}
