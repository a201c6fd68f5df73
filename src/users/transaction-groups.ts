/**
 * Group commit for a transactional source (TRANSACTION): the rounds that wait for the process's
 * one transaction share the next one, so 64 concurrent `createUser`s cost a few transactions
 * instead of 64 in a row (one `$inc` of the summed count, one ordered insert, one commit).
 *
 * Invariants:
 * - A group is what waited while the previous transaction ran, and what arrived in the event
 *   loop's turn it forms in (the queue of ./group-commit.ts says when), in arrival order, at most
 *   `USERS_PER_BATCH` documents (one insert command, as one `createUsers`); a member larger than
 *   what is left waits for the next group, and a first member is always taken.
 * - No two members of a group repeat an idempotency key: a member that would is kept for a later
 *   group. Were they inserted together, the later one would be refused by a document that is
 *   rolled back with it, and the users component would look for the key's stored user to replay
 *   and find none; in separate transactions it is refused by a committed one, as without groups.
 *   (A repeated email needs no such care: its refusal is final, whoever stored the email.)
 * - All or nothing, as for one member: a refused document rolls the whole group back, ids
 *   included, so a refused item consumes no id. The first refusal aborts a transaction, so it
 *   names one document; one `find` then reads which emails and keys of the whole group are
 *   stored, and every member holding such a value, or an email an earlier staying member holds,
 *   hears all its refused documents at once (and fails those items alone). The others go again at
 *   once, without newcomers, and again only after a value was stored since that `find` by another
 *   writer: at most `TRANSACTION_GROUP_RERUNS` times, then they hear `contention`
 *   (ID_CONTENTION). So 500 taken emails in one batch cost one rolled-back transaction and one
 *   `find`, not 500 transactions. A taken `_id` (the counter lagged behind stored ids) repairs
 *   the counter and runs the group again, at most the source's `maxRounds` times, then every
 *   member hears `contention`.
 * - Refusals are found only after a refusal: a group whose documents are all new (nearly all)
 *   pays no `find`, its transaction's 3 commands as before.
 * - Deadlines: a member whose signal fired before its group starts fails with the signal's reason
 *   and nothing is written for it; one that fires during an attempt (checked before the insert and
 *   before the commit) rolls that attempt back, so no commit is sent after its deadline; it
 *   fails, and the others go again.
 * - Commands are counted on the first member's tally: the group sent them once.
 */
import { annotateActiveSpan } from '../telemetry/index';
import { Long } from 'bson';
import { beforeWrite } from '../database/index';
import { TRANSACTION_GROUP_RERUNS, USERS_PER_BATCH } from '../limits';
import type { CreationTally, TransactionalIdSource } from '../strategies/index';
import { GroupCommitQueue, type GroupMember } from './group-commit';
import { insertInSession, type InsertOptions, type UniqueField, type UnsavedUser } from './insert';
import type { UserDocument, UsersCollection } from './model';
import { takenValues, type TakenValues } from './reads';

/** What one member's share of the group transactions came to. */
export type MemberRound = { attempts: number; collisions: number } &
  /** committed: every document of the member is stored, in order */
  (
    | { outcome: 'committed'; docs: UserDocument[] }
    /** the member's documents at these positions were refused; nothing of it was stored */
    | { outcome: 'refused'; refusals: Refusal[] }
    /** every `_id` the group took was taken, `maxRounds` times: nothing of it was stored */
    | { outcome: 'contention' }
  );

/** A document of a member refused for a value a stored user (or an earlier member) holds. */
export interface Refusal {
  position: number;
  field: 'email' | 'idempotencyKey';
}

/** What a member brings to the group: its documents, in order, and whose they are. */
interface MemberRequest {
  unsaved: UnsavedUser[];
  tally: CreationTally;
  options?: InsertOptions;
  /** Transactions its documents took part in so far. */
  attempts: number;
}

type Member = GroupMember<MemberRequest, MemberRound>;

type GroupAttempt =
  | { expired: Member[] }
  | { docs: UserDocument[][]; refused: { position: number; field: UniqueField } | null };

export class TransactionGroups {
  private readonly queue = new GroupCommitQueue<MemberRequest, MemberRound>({
    form: (waiting) => nextGroup(waiting),
    run: (group) => this.run(group),
  });

  constructor(
    private readonly users: UsersCollection,
    private readonly source: TransactionalIdSource,
  ) {}

  /** The documents of `unsaved` inserted in the next group transaction (see the header). */
  round(
    unsaved: UnsavedUser[],
    tally: CreationTally,
    options: InsertOptions | undefined,
  ): Promise<MemberRound> {
    return this.queue.join({ unsaved, tally, options, attempts: 0 });
  }

  /**
   * Transactions for `group` until every member is settled or failed: a refusal of an email or key
   * settles every member with a taken value (`settleRefused`) and runs the rest again, at most
   * `TRANSACTION_GROUP_RERUNS` times; a taken `_id` repairs the counter and runs the whole group
   * again, at most `maxRounds` times. So at most 1 + TRANSACTION_GROUP_RERUNS + `maxRounds`
   * transactions, each with the source's own bounded attempts.
   */
  private async run(initial: Member[]): Promise<void> {
    annotateActiveSpan({ 'sequential_ids.transaction_group_size': initial.length });
    let group = initial;
    let collisions = 0;
    let reruns = 0;
    let repairFirst = false; // the last attempt's `_id` was taken
    while (group.length > 0) {
      let attempt: GroupAttempt;
      try {
        attempt = await this.attempt(group, repairFirst);
        repairFirst = false;
      } catch (err) {
        failAll(group, err);
        return;
      }
      if ('expired' in attempt) {
        for (const member of attempt.expired) member.fail(member.item.options?.signal?.reason);
        group = group.filter((member) => !attempt.expired.includes(member));
        continue;
      }
      for (const member of group) member.item.attempts += 1;
      const { docs, refused } = attempt;
      if (refused === null) {
        group.forEach((member, i) => {
          member.settle({ outcome: 'committed', docs: docs[i], ...counts(member, collisions) });
        });
        return;
      }
      if (refused.field === '_id') {
        collisions += 1;
        if (collisions >= this.source.maxRounds) {
          for (const member of group) {
            member.settle({ outcome: 'contention', ...counts(member, collisions) });
          }
          return;
        }
        repairFirst = true; // in the next attempt's turn, before its `$inc`
        continue;
      }
      try {
        group = await this.settleRefused(group, docs, refused.position, refused.field, collisions);
      } catch (err) {
        failAll(group, err);
        return;
      }
      reruns += 1;
      if (group.length > 0 && reruns > TRANSACTION_GROUP_RERUNS) {
        for (const member of group) {
          member.settle({ outcome: 'contention', ...counts(member, collisions) });
        }
        return;
      }
    }
  }

  /**
   * After the document at `position` of the group was refused on `field`: one `find` for the
   * emails and keys of the whole group, then every member with a taken value hears all its
   * refused documents; answers the members that stay, which share no value with a stored user or
   * with each other.
   */
  private async settleRefused(
    group: Member[],
    docs: UserDocument[][],
    position: number,
    field: 'email' | 'idempotencyKey',
    collisions: number,
  ): Promise<Member[]> {
    const taken = await takenValues(
      this.users,
      group.flatMap((member) => member.item.unsaved),
      group[0].item.tally,
    );
    const owner = ownerOf(docs, position);
    const staying: Member[] = [];
    const stayingEmails = new Set<string>();
    group.forEach((member, index) => {
      const refusals = refusalsOf(member, taken, stayingEmails);
      // The server's own refusal stands, whether or not the `find` still sees its value.
      if (index === owner.member && !refusals.some((r) => r.position === owner.position)) {
        refusals.push({ position: owner.position, field });
        refusals.sort((a, b) => a.position - b.position);
      }
      if (refusals.length > 0) {
        member.settle({ outcome: 'refused', refusals, ...counts(member, collisions) });
        return;
      }
      staying.push(member);
      for (const user of member.item.unsaved) {
        if (user.email !== undefined) stayingEmails.add(user.email);
      }
    });
    return staying;
  }

  /** One group transaction: commits when every document is stored, else rolls all back. */
  private attempt(group: Member[], repairFirst: boolean): Promise<GroupAttempt> {
    const tally = group[0].item.tally;
    const size = group.reduce((sum, member) => sum + member.item.unsaved.length, 0);
    return this.source.takeWithInsert<GroupAttempt>(
      size,
      tally,
      async (ids, session) => {
        const expiredBefore = expiredIn(group);
        if (expiredBefore.length > 0) return { commit: false, value: { expired: expiredBefore } };
        let next = 0;
        const docs = group.map((member) => {
          const own = member.item.unsaved.map((user) => ({
            _id: Long.fromNumber(ids[next++]),
            ...user,
          }));
          member.item.options?.beforeInsert?.(own);
          return own;
        });
        const refused = await insertInSession(this.users, docs.flat(), session, tally);
        // A deadline that fired while the insert ran: no commit is sent after it.
        const expiredAfter = expiredIn(group);
        if (expiredAfter.length > 0) return { commit: false, value: { expired: expiredAfter } };
        return { commit: refused === null, value: { docs, refused } };
      },
      repairFirst,
    );
  }
}

/** The next group from the waiting members (see the header); refuses expired ones. */
function nextGroup(waiting: Member[]): { group: Member[]; later: Member[] } {
  const group: Member[] = [];
  const later: Member[] = [];
  const keys = new Set<string>();
  let size = 0;
  for (const member of waiting) {
    try {
      beforeWrite(member.item.options);
    } catch (err) {
      member.fail(err);
      continue;
    }
    const { unsaved } = member.item;
    const repeats = unsaved.some(
      (user) => user.idempotencyKey !== undefined && keys.has(user.idempotencyKey),
    );
    const fits = group.length === 0 || size + unsaved.length <= USERS_PER_BATCH;
    if (repeats || !fits) {
      later.push(member);
      continue;
    }
    group.push(member);
    size += unsaved.length;
    for (const user of unsaved) {
      if (user.idempotencyKey !== undefined) keys.add(user.idempotencyKey);
    }
  }
  return { group, later };
}

/**
 * The documents of `member` whose key or email a stored user holds, or whose email a member
 * staying in the group holds (the members before it). Its own documents repeat neither: its batch
 * refused those before they came here (./creation.ts).
 */
function refusalsOf(member: Member, taken: TakenValues, stayingEmails: ReadonlySet<string>) {
  const refusals: Refusal[] = [];
  member.item.unsaved.forEach((user, position) => {
    if (user.idempotencyKey !== undefined && taken.keys.has(user.idempotencyKey)) {
      refusals.push({ position, field: 'idempotencyKey' });
    } else if (
      user.email !== undefined &&
      (taken.emails.has(user.email) || stayingEmails.has(user.email))
    ) {
      refusals.push({ position, field: 'email' });
    }
  });
  return refusals;
}

/** A member already settled ignores the failure (a promise settles once). */
function failAll(group: Member[], err: unknown): void {
  for (const member of group) member.fail(err);
}

function expiredIn(group: Member[]): Member[] {
  return group.filter((member) => member.item.options?.signal?.aborted);
}

function counts(member: Member, collisions: number): { attempts: number; collisions: number } {
  return { attempts: member.item.attempts, collisions };
}

/** The member, and the position in its documents, of the group's document at `position`. */
function ownerOf(docs: UserDocument[][], position: number): { member: number; position: number } {
  let start = 0;
  for (let member = 0; member < docs.length; member += 1) {
    if (position < start + docs[member].length) return { member, position: position - start };
    start += docs[member].length;
  }
  throw new RangeError(`no document at position ${position} of the group`);
}
