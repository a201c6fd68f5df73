/**
 * A group-commit queue: callers that arrive while a round is running wait, and the next round
 * takes them together. A strategy supplies only its round (./insert-groups.ts: one insert of the
 * waiting BLOCK creations; ./transaction-groups.ts: one transaction of the waiting TRANSACTION
 * rounds) and how a group is formed from the waiting members.
 *
 * Invariants:
 * - One round runs at a time per queue. Every group forms at the end of the event loop's turn in
 *   which it could start (`setImmediate`): the members that arrive in that turn join it. A member
 *   that arrives when no round runs waits for no round, only for the end of its turn. Without
 *   that wait the first arrival of a burst went alone and every other one waited behind it, so
 *   group sizes alternated 1 and nearly all, and the large group paid a whole extra round.
 * - Members are offered to `form` in arrival order; the ones it does not take stay waiting, in
 *   their order, for a later round. A member `form` neither takes nor keeps has been answered by
 *   it (e.g. refused after its deadline).
 * - Every member is answered, whatever its round throws: a round's rejection fails every member
 *   of its group with that error (a member already settled ignores it, as a promise settles
 *   once). A rejection escaping the drain would go unhandled, and Node ends the process on one.
 */
import { setImmediate as endOfThisTurn } from 'node:timers/promises';

/** A caller waiting in the queue: what it brings, and how it is answered. */
export interface GroupMember<Item, Outcome> {
  item: Item;
  settle(outcome: Outcome): void;
  fail(error: unknown): void;
}

/** What a strategy supplies: how a group is formed, and its round. */
export interface GroupRound<Item, Outcome> {
  /** The next group from `waiting` (arrival order), and the members kept for a later group. */
  form(waiting: Array<GroupMember<Item, Outcome>>): {
    group: Array<GroupMember<Item, Outcome>>;
    later: Array<GroupMember<Item, Outcome>>;
  };
  /** Runs one group and answers its members. */
  run(group: Array<GroupMember<Item, Outcome>>): Promise<void>;
}

export class GroupCommitQueue<Item, Outcome> {
  private waiting: Array<GroupMember<Item, Outcome>> = [];
  private draining = false;

  constructor(private readonly round: GroupRound<Item, Outcome>) {}

  /** `item` in the next group this queue runs: what its round answers it. */
  join(item: Item): Promise<Outcome> {
    return new Promise((settle, fail) => {
      this.waiting.push({ item, settle, fail });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.waiting.length > 0) {
        await endOfThisTurn();
        const { group, later } = this.round.form(this.waiting);
        this.waiting = later;
        if (group.length === 0) continue;
        await this.round.run(group).catch((err: unknown) => {
          for (const member of group) member.fail(err);
        });
      }
    } finally {
      this.draining = false;
    }
  }
}
