/**
 * Insert groups for a taking source that groups creations (BLOCK, `groupsCreations`): the single
 * creations that arrive while this process's previous insert of that strategy is in flight wait
 * for it and share the next one, one unordered `insert` of all their documents. So 64 concurrent
 * `createUser`s cost a few inserts (and now and then the block's `$inc`), not 64. COUNTER does
 * not group: it stays the tutorial's `findAndModify` + insert per user.
 *
 * Invariants:
 * - A group is what waited while the previous group ran, and what arrived in the event loop's
 *   turn it forms in, in arrival order, at most `USERS_PER_BATCH` documents (one insert command,
 *   as one `createUsers`). One group runs at a time per source (the queue of ./group-commit.ts,
 *   which says when a group forms), in a shared turn of the process's `UserIdTurns`. A creation
 *   that arrives when no group runs waits only for the end of its turn, never for an insert.
 * - Unique ids: the group takes all its ids with one `take` of the source, which hands each out
 *   once, so no two members share one; the unique index on `_id` decides as for every insert.
 * - Each document fails alone, as when it was inserted by itself: the insert is unordered, a
 *   document refused on its email or idempotency key is refused on its own and the others are
 *   stored. Its id was stored nowhere, so it goes back to the source (BLOCK: to this process's
 *   block, handed out next, no gap). A document whose `_id` was taken (the counter lagged behind
 *   stored ids) drops the block (`onCollision`) and goes again on its own, alone in the process,
 *   with the rounds of ./fresh-ids.ts (repair, take, insert).
 * - Idempotency keys: two members with one key may share a group; the second is refused by the
 *   first's document, which is stored (nothing is rolled back, unlike a transaction group), so
 *   the users component finds it and answers a replay, as for two separate inserts.
 * - Deadlines: a member whose signal fired before the group takes its ids fails with the signal's
 *   reason and takes none; one whose signal fires while the ids are taken (a refill) fails the
 *   same way and its id goes back. Nothing is sent for a member after its deadline. A signal that
 *   fires while the insert is in flight cannot recall it, as for a creation alone.
 * - Failures of the command itself (network, timeout, write concern) fail every member with that
 *   error, as each one's own insert would have (a transient one: SERVICE_UNAVAILABLE, retryable);
 *   their ids stay gaps, since the server may have stored their documents.
 * - A crash inside a group: a member is acknowledged only after the insert returned (write
 *   concern `majority`), so an acknowledged user is stored; ids the process took but never
 *   stored are the rest of its block, gaps, never issued again.
 * - Commands are counted on one member's tally (the first that took part in them): the group sent
 *   them once.
 */
import { Long } from 'bson';
import { beforeWrite } from '../database/index';
import { DomainError } from '../errors';
import { USERS_PER_BATCH } from '../limits';
import type { CreationTally, TakenIds, TakingIdSource, UserIdTurns } from '../strategies/index';
import { annotateActiveSpan } from '../telemetry/index';
import { IdContentionError } from './errors';
import { GroupCommitQueue, type GroupMember } from './group-commit';
import {
  insertUnordered,
  type InsertOptions,
  type InsertResult,
  type UniqueField,
  type UnsavedUser,
} from './insert';
import type { UserDocument, UsersCollection } from './model';

/** One document's creation over its rounds (in a group, then alone): what its rounds came to. */
export interface OneCreation {
  unsaved: UnsavedUser;
  tally: CreationTally;
  options?: InsertOptions;
  /** Inserts sent so far. */
  attempts: number;
  /** Inserts sent again after the `_id` was taken. */
  retries: number;
}

/**
 * What round `round` of `one` came to after its insert was answered (`field`: the unique index
 * that refused it, if one did): its result, or null when its `_id` was taken and it goes again.
 * Sends nothing: the give-back and the block's drop are the round's (./fresh-ids.ts) or the
 * group's, once for all its members.
 */
export function roundResult(
  round: number,
  one: OneCreation,
  doc: UserDocument,
  field: UniqueField | undefined,
  maxRounds: number,
): InsertResult | null {
  one.attempts += 1;
  if (field === undefined) return { created: doc };
  if (field !== '_id') return { duplicateOn: field };
  if (round >= maxRounds) return { error: new IdContentionError(one.attempts) };
  one.retries += 1;
  return null;
}

type Member = GroupMember<OneCreation, InsertResult | null>;

export class InsertGroups {
  private readonly queue = new GroupCommitQueue<OneCreation, InsertResult | null>({
    form: (waiting) => ({
      group: waiting.slice(0, USERS_PER_BATCH),
      later: waiting.slice(USERS_PER_BATCH),
    }),
    run: (group) => this.turns.shared(() => this.run(group)),
  });

  constructor(
    private readonly users: UsersCollection,
    private readonly source: TakingIdSource,
    private readonly turns: UserIdTurns,
  ) {}

  /** The first round of `one`, in the next group: its result, or null to go again alone. */
  firstRound(one: OneCreation): Promise<InsertResult | null> {
    return this.queue.join(one);
  }

  /** Take, insert, give back, answer: one group's round (see the header). */
  private async run(group: Member[]): Promise<void> {
    const live = group.filter((member) => inTime(member));
    if (live.length === 0) return;
    annotateActiveSpan({ 'sequential_ids.insert_group_size': live.length });
    let taken: TakenIds;
    try {
      taken = await this.source.take(live.length, live[0].item.tally);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      for (const member of live) member.settle({ error: err });
      return;
    }
    // Positions in `taken.ids` stored nowhere: a deadline fired during the take, or refused.
    const unstored = new Set<number>();
    const sent: Array<{ member: Member; doc: UserDocument; k: number }> = [];
    live.forEach((member, k) => {
      if (!inTime(member)) {
        unstored.add(k);
        return;
      }
      const doc: UserDocument = { _id: Long.fromNumber(taken.ids[k]), ...member.item.unsaved };
      member.item.options?.beforeInsert?.([doc]);
      sent.push({ member, doc, k });
    });
    if (sent.length === 0) {
      await taken.giveBack(unstored, live[0].item.tally);
      return;
    }
    const { tally } = sent[0].member.item;
    const refused = await insertUnordered(
      this.users,
      sent.map(({ doc }) => doc),
      tally,
    );
    let collided = false;
    const results = sent.map(({ member, doc, k }, position) => {
      const field = refused.get(position);
      if (field === '_id') collided = true;
      else if (field !== undefined) unstored.add(k);
      return roundResult(1, member.item, doc, field, this.source.maxRounds);
    });
    if (unstored.size > 0) await taken.giveBack(unstored, tally);
    if (collided) this.source.onCollision?.();
    sent.forEach(({ member }, position) => member.settle(results[position]));
  }
}

/** Whether the member's deadline has not fired; one whose has is failed with its reason. */
function inTime(member: Member): boolean {
  try {
    beforeWrite(member.item.options);
    return true;
  } catch (err) {
    member.fail(err);
    return false;
  }
}
