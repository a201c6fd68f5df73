/**
 * The unique indexes the `users` collection relies on, and keeping them there.
 *
 * Invariants: both are partial on `$type: 'string'`, so users without an email (or created without
 * an idempotency key) never collide with each other, while two users can never share an email and
 * two requests can never both create a user under one key, whatever the interleaving. The unique
 * index on `_id` needs no creation: it is what turns a taken id into a duplicate-key error that the
 * strategies retry.
 *
 * Healing: the indexes can disappear under a running service (the collection
 * dropped, the database swapped for an empty one, a restore without indexes), and an insert never
 * says so. So a user with an email or a key is acknowledged only once the indexes are seen after
 * its insert (`confirm`, a `listIndexes`): a unique index that exists after the insert proves the
 * user was unique when it was built and ever since. "After" means a `listIndexes` sent once the
 * insert was acknowledged, so concurrent confirmations share one (shared-check.ts: at most one in
 * flight per process; who asks while one is in flight waits for the next, since the one in flight
 * may have been evaluated before its insert), which under load costs far less than one command per
 * user; one confirmation alone still costs one, and a check that fails fails all who shared it.
 * When the indexes are missing, `heal` re-creates them (one rebuild per process at a time). A
 * rebuild refused for duplicates can only be refused for documents inserted while the index was
 * missing, which are unconfirmed: this process deletes its own (`track`ed, never acknowledged) and
 * tries again, and their requests insert them anew, now under the index (ending as a replay, or
 * EMAIL_TAKEN for a lost race). Since a rebuild deletes only before it succeeds, a user re-read
 * after a successful rebuild stays. Residual: a user of this process acknowledged in the very
 * instant its index is dropped (collection kept) can be deleted by the rebuild if duplicates were
 * inserted meanwhile; and an email changed by `updateUser` while the index is missing stays changed
 * when the rebuild fails (the update answers SERVICE_UNAVAILABLE, and a duplicate it made keeps the
 * index down until an operator resolves it).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Long, type IndexDescription } from 'mongodb';
import {
  countCommand,
  isDuplicateKeyError,
  isNamespaceNotFound,
  type CommandTally,
} from '../database/index';
import type { UsersCollection } from './model';
import { SharedCheck } from './shared-check';

const UNIQUE_INDEXES: IndexDescription[] = [
  { key: { email: 1 }, unique: true, partialFilterExpression: { email: { $type: 'string' } } },
  {
    key: { idempotencyKey: 1 },
    unique: true,
    partialFilterExpression: { idempotencyKey: { $type: 'string' } },
  },
];
const UNIQUE_FIELDS = UNIQUE_INDEXES.map((index) => Object.keys(index.key)[0]);

/** Rebuild attempts while this process's unconfirmed duplicates are removed; then give up. */
const REBUILD_ATTEMPTS = 10;
const REBUILD_BACKOFF_MS = 50;

/** The ids one call inserted (or is about to insert) with an email or key, until it confirms them. */
export interface Tracked {
  readonly ids: number[];
  /** The rebuilds that deleted unconfirmed users when tracking began. */
  readonly purgesSeen: number;
}

export class UserIndexes {
  private rebuilding: Promise<boolean> | null = null;
  /** Users this process inserted with an email or key and has not confirmed: their counts. */
  private readonly unconfirmed = new Map<number, number>();
  /** Rebuilds that deleted unconfirmed users. */
  private purges = 0;
  /**
   * The one `listIndexes` check of this process, behind every `present`. Creation and `updateUser`
   * share it since each needs exactly what it guarantees (a check sent after the caller's write);
   * readiness shares it too: any check sent after it asked is fresh enough for it, and so a probe
   * never puts a second `listIndexes` in flight beside the creations'.
   */
  private readonly check = new SharedCheck((tally) => this.listedNow(tally));

  constructor(private readonly users: UsersCollection) {}

  /** Creates the indexes (idempotent); at start-up and when healing. */
  async create(): Promise<void> {
    await this.users.collection.createIndexes(UNIQUE_INDEXES, this.users.options());
  }

  /**
   * Whether both unique indexes exist, seen by a `listIndexes` sent after this call: shared with
   * the other callers who ask while one is in flight (shared-check.ts), counted once.
   */
  present(tally?: CommandTally): Promise<boolean> {
    return this.check.ask(tally);
  }

  /** One `listIndexes` now (a missing collection has none). */
  private async listedNow(tally: CommandTally | undefined): Promise<boolean> {
    countCommand(tally);
    let indexes: Array<{ key?: Record<string, unknown>; unique?: boolean }>;
    try {
      indexes = await this.users.collection.listIndexes(this.users.options()).toArray();
    } catch (err) {
      if (!isNamespaceNotFound(err)) throw err;
      indexes = [];
    }
    return UNIQUE_FIELDS.every((field) =>
      indexes.some((index) => index.unique === true && Object.keys(index.key ?? {})[0] === field),
    );
  }

  /**
   * For readiness: whether the indexes are in place. When they are not, a rebuild starts (and this
   * answers false until a later call sees them).
   */
  async ready(): Promise<boolean> {
    if (this.rebuilding !== null) return false;
    if (await this.present()) return true;
    // Its failure (the database gone again) is seen by the next check; nobody waits for it here.
    this.heal().catch(() => undefined);
    return false;
  }

  /** Starts tracking `ids` before their insert is sent, so a rebuild can tell them unconfirmed. */
  track(tracked: Tracked | null, ids: number[]): Tracked {
    for (const id of ids) this.unconfirmed.set(id, (this.unconfirmed.get(id) ?? 0) + 1);
    return {
      ids: [...(tracked?.ids ?? []), ...ids],
      purgesSeen: tracked?.purgesSeen ?? this.purges,
    };
  }

  /** Stops tracking (after confirming, or after giving up on the call). */
  untrack(tracked: Tracked): void {
    for (const id of tracked.ids) {
      const count = (this.unconfirmed.get(id) ?? 1) - 1;
      if (count === 0) this.unconfirmed.delete(id);
      else this.unconfirmed.set(id, count);
    }
  }

  /**
   * Whether the users of `tracked` (and the replayed users `replayedIds`, inserted elsewhere) may be
   * acknowledged, after their insert: `healed` false when the indexes are missing and could not be
   * rebuilt; else `gone`, the ids among them no stored user has any more (deleted by a rebuild)
   * whose items must be created again. Re-reads only when a rebuild may have deleted something.
   */
  async confirm(
    tracked: Tracked,
    replayedIds: number[],
    tally: CommandTally,
  ): Promise<{ healed: boolean; gone: Set<number> }> {
    if (!(await this.presentOrHealed(tally))) {
      return { healed: false, gone: new Set() };
    }
    const suspects = [...replayedIds, ...(this.purges === tracked.purgesSeen ? [] : tracked.ids)];
    return { healed: true, gone: await this.missing(suspects, tally) };
  }

  /** For a write that does not create users (an email changed): the indexes exist, or were rebuilt. */
  async presentOrHealed(tally?: CommandTally): Promise<boolean> {
    return (await this.present(tally)) || this.heal();
  }

  /** Re-creates the indexes; one rebuild per process at a time. True once they exist again. */
  heal(): Promise<boolean> {
    this.rebuilding ??= this.rebuild().finally(() => {
      this.rebuilding = null;
    });
    return this.rebuilding;
  }

  private async rebuild(): Promise<boolean> {
    for (let attempt = 1; attempt <= REBUILD_ATTEMPTS; attempt += 1) {
      try {
        await this.create();
        return true;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
      if (this.unconfirmed.size > 0) {
        const ids = [...this.unconfirmed.keys()].map((id) => Long.fromNumber(id));
        this.purges += 1;
        await this.users.collection.deleteMany({ _id: { $in: ids } }, this.users.options());
      }
      await sleep(REBUILD_BACKOFF_MS * attempt);
    }
    return false;
  }

  /** The ids among `ids` that no stored user has. */
  private async missing(ids: number[], tally: CommandTally): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    countCommand(tally);
    const unique = [...new Set(ids)];
    const found = await this.users.collection
      .find(
        { _id: { $in: unique.map((id) => Long.fromNumber(id)) } },
        this.users.options({ projection: { _id: 1 } }),
      )
      .toArray();
    const stored = new Set(found.map((doc) => Number(doc._id)));
    return new Set(unique.filter((id) => !stored.has(id)));
  }
}
