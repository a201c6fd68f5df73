/**
 * A change stream as a feed a subscriber reads: opened before it is handed over, each event with
 * the cursor to resume after it, and closed the moment the subscriber leaves.
 *
 * Why here: resume tokens and the ChangeStream API are driver knowledge (src/database owns it);
 * the components own which collection and which events (src/sequences/changes.ts,
 * src/users/changes.ts).
 *
 * Contract:
 * - `openChangeFeed` resolves once the server's `$changeStream` cursor is open (its first
 *   `aggregate` answered), so every write acknowledged after it resolves reaches the feed; `cursor`
 *   is then the stream's position (its `postBatchResumeToken`), to resume from "now".
 * - A cursor is the resume token as EJSON, base64url-encoded: opaque to clients, exact for MongoDB.
 *   Resuming after it (`resumeAfter`) replays every matching change since that event, none twice;
 *   a cursor older than the server's history fails with the server's own error.
 * - `return()` (a subscriber that leaves) closes the stream at once, even while a `getMore` waits
 *   (an async generator could not: its `return` waits for the pending `await`).
 * - Every wait is bounded: each `getMore` by `maxAwaitTimeMS`, the opening `aggregate` by
 *   `maxTimeMS`; the driver resumes by itself after a resumable error.
 */
import { EJSON, type Document } from 'bson';
import type {
  ChangeStream,
  ChangeStreamDocument,
  ChangeStreamOptions,
  Collection,
  ResumeToken,
} from 'mongodb';
import { BadUserInputError } from '../errors.js';

/** One event of a feed: what it maps to, and the cursor to resume after it. */
export interface FeedEvent<T> {
  cursor: string;
  value: T;
}

export interface ChangeFeed<T> extends AsyncIterableIterator<FeedEvent<T>> {
  /** Where the feed stood when it opened: resume from here to miss nothing after that moment. */
  readonly cursor: string;
}

/** The longest cursor accepted: mongod's tokens are about 100 bytes, the stand-in's fewer. */
const MAX_CURSOR_LENGTH = 1_000;

export function cursorOf(token: ResumeToken): string {
  return Buffer.from(EJSON.stringify(token as Document, { relaxed: false })).toString('base64url');
}

/** The resume token a cursor stands for; a malformed cursor is BAD_USER_INPUT naming `field`. */
export function resumeTokenOf(cursor: string, field: string): ResumeToken {
  const refusal = new BadUserInputError(`${field} must be a cursor this API gave out.`, { field });
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refusal;
  try {
    const token: unknown = EJSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'), {
      relaxed: false,
    });
    if (token === null || typeof token !== 'object' || Array.isArray(token)) throw refusal;
    return token as ResumeToken;
  } catch {
    throw refusal;
  }
}

export interface ChangeFeedOptions<T> {
  /** Resume after this cursor (BAD_USER_INPUT on `afterField` when malformed). */
  after?: string | null;
  afterField?: string;
  /** Bound of each server-side wait for the next change. */
  maxAwaitTimeMS: number;
  /** Bound of the opening `aggregate`. */
  maxTimeMS: number;
  fullDocument?: ChangeStreamOptions['fullDocument'];
  /** The feed's first value, read once the stream is open (its event has the feed's `cursor`). */
  initial?: () => Promise<T>;
}

/**
 * Opens a change stream on `collection` with `pipeline` after `$changeStream`, and answers it as a
 * feed of `map(change)`; events `map` answers null for are skipped (their cursor still advances).
 */
export async function openChangeFeed<TSchema extends Document, T>(
  collection: Collection<TSchema>,
  pipeline: Document[],
  options: ChangeFeedOptions<T>,
  map: (change: ChangeStreamDocument<TSchema>) => T | null,
): Promise<ChangeFeed<T>> {
  const stream = collection.watch<TSchema>(pipeline, {
    maxAwaitTimeMS: options.maxAwaitTimeMS,
    maxTimeMS: options.maxTimeMS,
    ...(options.fullDocument === undefined ? {} : { fullDocument: options.fullDocument }),
    ...(options.after === undefined || options.after === null
      ? {}
      : { resumeAfter: resumeTokenOf(options.after, options.afterField ?? 'after') }),
  });
  try {
    // Opens the server's cursor; a change already waiting (when resuming) is kept, not lost.
    const first = await stream.tryNext();
    const cursor = cursorOf(stream.resumeToken);
    const head = options.initial === undefined ? [] : [{ cursor, value: await options.initial() }];
    return new StreamFeed(stream, map, first, cursor, head);
  } catch (err) {
    await stream.close();
    throw err;
  }
}

class StreamFeed<TSchema extends Document, T> implements ChangeFeed<T> {
  private closed = false;

  constructor(
    private readonly stream: ChangeStream<TSchema>,
    private readonly map: (change: ChangeStreamDocument<TSchema>) => T | null,
    private waiting: ChangeStreamDocument<TSchema> | null,
    readonly cursor: string,
    private readonly head: Array<FeedEvent<T>>,
  ) {}

  async next(): Promise<IteratorResult<FeedEvent<T>>> {
    const queued = this.head.shift();
    if (queued !== undefined && !this.closed) return { done: false, value: queued };
    while (!this.closed) {
      let change: ChangeStreamDocument<TSchema>;
      if (this.waiting !== null) {
        change = this.waiting;
        this.waiting = null;
      } else {
        try {
          change = await this.stream.next();
        } catch (err) {
          if (this.closed) break;
          throw err;
        }
      }
      const value = this.map(change);
      if (value !== null) return { done: false, value: { cursor: cursorOf(change._id), value } };
    }
    return { done: true, value: undefined };
  }

  async return(): Promise<IteratorResult<FeedEvent<T>>> {
    this.closed = true;
    await this.stream.close();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
