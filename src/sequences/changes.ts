/**
 * `SequenceChanges`: a counter's changes as they happen, from a MongoDB change stream on the
 * `counters` collection, so a subscriber sees every allocation and set of every service instance.
 *
 * Contract: a feed of one sequence yields its state after each insert, update or replace of its
 * counter document (`fullDocument: 'updateLookup'`: the document as it is when the event is read,
 * so two quick changes may both show the later state; each event's cursor is still its own). A
 * fresh feed starts with the state as it is once the stream is open, so a subscriber learns the
 * counter at once and misses nothing after it; a resumed one replays what it missed. A counter
 * whose document no longer reads as a sequence yields nothing (the stream goes on).
 */
import type { Collection } from 'mongodb';
import { type ChangeFeed, openChangeFeed } from '../database/index';
import { type CounterDocument, type SequenceState, toState } from './counter-document';
import { SequenceCorruptError } from './errors';
import type { ResolvedKey } from './keys';

/** How long one server-side wait for the next change lasts before the driver asks again. */
const AWAIT_MS = 1_000;

export class SequenceChanges {
  constructor(
    private readonly counters: Collection<CounterDocument>,
    private readonly maxTimeMS: number,
  ) {}

  /**
   * The changes of `key`'s counter; after `after` (a cursor) when given, else from now. Each state
   * is handed out as `seen` makes it (how its caller sees ids).
   */
  watch(
    key: ResolvedKey,
    after: string | null,
    current: () => Promise<SequenceState>,
    seen: (state: SequenceState) => SequenceState = (state) => state,
  ): Promise<ChangeFeed<SequenceState>> {
    return openChangeFeed(
      this.counters,
      [
        {
          $match: {
            'documentKey._id': key.id,
            operationType: { $in: ['insert', 'update', 'replace'] },
          },
        },
      ],
      {
        after,
        afterField: 'after',
        maxAwaitTimeMS: AWAIT_MS,
        maxTimeMS: this.maxTimeMS,
        fullDocument: 'updateLookup',
        initial: after === null ? current : undefined,
      },
      (change) => {
        if (!('fullDocument' in change) || change.fullDocument == null) return null;
        try {
          return seen(toState(key, change.fullDocument));
        } catch (err) {
          if (err instanceof SequenceCorruptError) return null;
          throw err;
        }
      },
    );
  }
}
