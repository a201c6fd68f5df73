/**
 * A change stream as a feed a subscriber reads: opened before it is handed over, each event with
 * the cursor to resume after it, and closed the moment the subscriber leaves.
 *
 * Why here: resume tokens and the ChangeStream API are driver knowledge (src/database owns it);
 * the components own which collection and which events (src/sequences/changes.ts,
 * src/users/changes.ts).
 *
 * Contract:
 * - One stream, many subscribers: fresh subscribers (no `after`) of the same collection and
 *   pipeline in one process share one change stream, opened by the first and closed when the
 *   last leaves; each change is mapped, and its cursor encoded, once for all of them (one stream
 *   per subscriber made 100 subscribers 100 streams, each reading and decoding every change). So calls
 *   with the same collection object and the same pipeline must map changes alike (the pipeline
 *   names everything `map` depends on). A subscriber resuming `after` a cursor reads a stream of
 *   its own from there.
 * - `openChangeFeed` resolves once the server's `$changeStream` cursor is open (its first
 *   `aggregate` answered), so every write sent after it resolves reaches the feed; `cursor` is then
 *   the feed's position (the last change the shared stream handed out, or the stream's
 *   `postBatchResumeToken`), to resume from "now".
 * - A cursor is the resume token as EJSON, base64url-encoded: opaque to clients, exact for MongoDB.
 *   Resuming after it (`resumeAfter`) replays every matching change since that event, none twice;
 *   a cursor older than the server's history fails with the server's own error.
 * - A shared stream is read as fast as changes come; a subscriber reading slower is bounded: past
 *   `MAX_QUEUED` (src/limits.ts) undelivered events its feed fails with SUBSCRIBER_BEHIND (retryable: subscribe
 *   again `after` the last cursor it received, and miss nothing), and the others go on. A resumed
 *   subscriber's own stream is read only as fast as it reads (it may have much to replay).
 * - `return()` (a subscriber that leaves) ends its feed at once; the last one to leave closes the
 *   stream, even while a `getMore` waits (an async generator could not: its `return` waits for
 *   the pending `await`). A stream that fails fails every feed reading it.
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
import { BadUserInputError, DomainError } from '../errors';
import { MAX_CURSOR_LENGTH, MAX_QUEUED } from '../limits';

/** One event of a feed: what it maps to, and the cursor to resume after it. */
export interface FeedEvent<T> {
  cursor: string;
  value: T;
}

export interface ChangeFeed<T> extends AsyncIterableIterator<FeedEvent<T>> {
  /** Where the feed stood when it opened: resume from here to miss nothing after that moment. */
  readonly cursor: string;
  /** Leaves the feed (closing its stream when it was the last reader). */
  return(): Promise<IteratorResult<FeedEvent<T>>>;
}

/** A subscriber fell `MAX_QUEUED` events behind its stream; it resumes with its last cursor. */
export class SubscriberBehindError extends DomainError {
  readonly code = 'SUBSCRIBER_BEHIND';

  constructor() {
    super(
      `This subscription fell ${MAX_QUEUED} events behind and was ended; subscribe again with \`after:\` the last cursor it received to miss nothing.`,
      { retryable: true },
    );
  }
}

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

type MapChange<TSchema extends Document, T> = (change: ChangeStreamDocument<TSchema>) => T | null;

/**
 * Opens a change stream on `collection` with `pipeline` after `$changeStream` (or joins the one
 * this process has open), and answers it as a feed of `map(change)`; events `map` answers null for
 * are skipped (their cursor still advances).
 */
export async function openChangeFeed<TSchema extends Document, T>(
  collection: Collection<TSchema>,
  pipeline: Document[],
  options: ChangeFeedOptions<T>,
  map: MapChange<TSchema, T>,
): Promise<ChangeFeed<T>> {
  const resumeAfter =
    options.after === undefined || options.after === null
      ? undefined
      : resumeTokenOf(options.after, options.afterField ?? 'after');
  let feed: QueuedFeed<T> | PulledFeed<TSchema, T> | null = null;
  if (resumeAfter !== undefined) {
    feed = await openOwnFeed(collection, pipeline, options, map, resumeAfter);
  } else {
    // A shared stream whose last subscriber left while this one joined is closed: open another.
    for (let attempt = 0; attempt < 3 && feed === null; attempt += 1) {
      feed = await shared(collection, pipeline, options, map).join<T>();
    }
    if (feed === null) throw new Error('The change stream kept closing while subscribing');
  }
  if (options.initial === undefined) return feed;
  try {
    feed.unshift({ cursor: feed.cursor, value: await options.initial() });
    return feed;
  } catch (err) {
    await feed.return();
    throw err;
  }
}

function watch<TSchema extends Document>(
  collection: Collection<TSchema>,
  pipeline: Document[],
  options: ChangeFeedOptions<unknown>,
  resumeAfter?: ResumeToken,
): ChangeStream<TSchema> {
  return collection.watch<TSchema>(pipeline, {
    maxAwaitTimeMS: options.maxAwaitTimeMS,
    maxTimeMS: options.maxTimeMS,
    ...(options.fullDocument === undefined ? {} : { fullDocument: options.fullDocument }),
    ...(resumeAfter === undefined ? {} : { resumeAfter }),
  });
}

/**
 * A resumed subscriber's own stream, from its cursor, read only as fast as the subscriber reads
 * (it may have much to replay; nobody else waits on it).
 */
async function openOwnFeed<TSchema extends Document, T>(
  collection: Collection<TSchema>,
  pipeline: Document[],
  options: ChangeFeedOptions<T>,
  map: MapChange<TSchema, T>,
  resumeAfter: ResumeToken,
): Promise<PulledFeed<TSchema, T>> {
  const stream = watch(collection, pipeline, options as ChangeFeedOptions<unknown>, resumeAfter);
  try {
    // Opens the server's cursor; a change already waiting is kept, not lost.
    const first = await stream.tryNext();
    return new PulledFeed(stream, map, first, cursorOf(stream.resumeToken));
  } catch (err) {
    await stream.close();
    throw err;
  }
}

/** A feed that reads its own stream on demand. */
class PulledFeed<TSchema extends Document, T> implements ChangeFeed<T> {
  private closed = false;
  private readonly head: Array<FeedEvent<T>> = [];

  constructor(
    private readonly stream: ChangeStream<TSchema>,
    private readonly map: MapChange<TSchema, T>,
    private waiting: ChangeStreamDocument<TSchema> | null,
    readonly cursor: string,
  ) {}

  unshift(event: FeedEvent<T>): void {
    this.head.unshift(event);
  }

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

/** The streams fresh subscribers share: per collection object, by pipeline and options. */
const sharedStreams = new WeakMap<Collection<Document>, Map<string, StreamReader<Document>>>();

/** The reader for `pipeline` on `collection`, opened (not yet awaited) when none is. */
function shared<TSchema extends Document, T>(
  collection: Collection<TSchema>,
  pipeline: Document[],
  options: ChangeFeedOptions<T>,
  map: MapChange<TSchema, T>,
): StreamReader<TSchema> {
  const owner = collection as unknown as Collection<Document>;
  let byPipeline = sharedStreams.get(owner);
  if (byPipeline === undefined) {
    byPipeline = new Map();
    sharedStreams.set(owner, byPipeline);
  }
  const key = EJSON.stringify({ pipeline, fullDocument: options.fullDocument ?? null });
  const existing = byPipeline.get(key);
  if (existing !== undefined) return existing as unknown as StreamReader<TSchema>;
  const registry = byPipeline;
  const reader: StreamReader<TSchema> = new StreamReader(
    watch(collection, pipeline, options as ChangeFeedOptions<unknown>),
    map as MapChange<TSchema, unknown>,
    () => {
      if (registry.get(key) === (reader as unknown)) registry.delete(key);
    },
  );
  byPipeline.set(key, reader as unknown as StreamReader<Document>);
  return reader;
}

/**
 * One change stream read for every feed on it: each change mapped once, then handed to each
 * feed's queue. Reads while it has feeds; closes its stream (and calls `ended`) when the last
 * leaves or the stream fails.
 */
class StreamReader<TSchema extends Document> {
  private readonly feeds = new Set<QueuedFeed<unknown>>();
  private opening?: Promise<void>;
  /** A change the opening read returned, handed to the first feed when reading starts. */
  private first: ChangeStreamDocument<TSchema> | null = null;
  private reading = false;
  private closed = false;
  /** The cursor after the last change handed out (or the stream's position when it opened). */
  position = '';

  constructor(
    private readonly stream: ChangeStream<TSchema>,
    private readonly map: MapChange<TSchema, unknown>,
    private readonly ended: () => void,
  ) {}

  /**
   * Opens the server's cursor (once). A change the opening read returned (written just after the
   * stream opened) waits for the first feed, when reading starts.
   */
  open(): Promise<void> {
    this.opening ??= (async () => {
      try {
        this.first = await this.stream.tryNext();
      } catch (err) {
        await this.close();
        throw err;
      }
      this.position = cursorOf(this.stream.resumeToken);
    })();
    return this.opening;
  }

  /** A new feed on this stream from its current position; null when it closed meanwhile. */
  async join<T>(): Promise<QueuedFeed<T> | null> {
    await this.open();
    if (this.closed) return null;
    const feed: QueuedFeed<unknown> = new QueuedFeed(this.position, () => this.leave(feed));
    this.add(feed);
    return feed as QueuedFeed<T>;
  }

  /** Adds a feed; the first one starts the reading. */
  private add(feed: QueuedFeed<unknown>): void {
    this.feeds.add(feed);
    if (this.reading) return;
    this.reading = true;
    const first = this.first;
    this.first = null;
    void this.read(first);
  }

  async leave(feed: QueuedFeed<unknown>): Promise<void> {
    this.feeds.delete(feed);
    if (this.feeds.size === 0) await this.close();
  }

  private async read(first: ChangeStreamDocument<TSchema> | null): Promise<void> {
    let change = first;
    try {
      for (;;) {
        if (change !== null) this.handOut(change);
        if (this.closed) return;
        change = await this.stream.next();
      }
    } catch (err) {
      if (this.closed) return;
      for (const feed of this.feeds) feed.fail(err);
      await this.close();
    }
  }

  private handOut(change: ChangeStreamDocument<TSchema>): void {
    this.position = cursorOf(change._id);
    const value = this.map(change);
    if (value === null) return;
    const event = { cursor: this.position, value };
    for (const feed of this.feeds) feed.push(event);
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ended();
    await this.stream.close();
  }
}

/** One subscriber's feed: the events handed to it, waiting until it reads them (bounded). */
class QueuedFeed<T> implements ChangeFeed<T> {
  private readonly queue: Array<FeedEvent<T>> = [];
  private waiting?: (result: IteratorResult<FeedEvent<T>>) => void;
  private failWaiting?: (err: unknown) => void;
  private failure: unknown = null;
  private done = false;

  constructor(
    readonly cursor: string,
    private readonly leave: () => Promise<void>,
  ) {}

  /** Puts `event` first (the feed's initial value). */
  unshift(event: FeedEvent<T>): void {
    this.queue.unshift(event);
  }

  push(event: FeedEvent<T>): void {
    if (this.done) return;
    if (this.waiting !== undefined) {
      const resolve = this.waiting;
      this.waiting = this.failWaiting = undefined;
      resolve({ done: false, value: event });
      return;
    }
    if (this.queue.length >= MAX_QUEUED) {
      this.fail(new SubscriberBehindError());
      void this.leave();
      return;
    }
    this.queue.push(event);
  }

  fail(err: unknown): void {
    if (this.done) return;
    this.done = true;
    this.failure = err;
    this.queue.length = 0;
    const reject = this.failWaiting;
    this.waiting = this.failWaiting = undefined;
    reject?.(err);
  }

  next(): Promise<IteratorResult<FeedEvent<T>>> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve({ done: false, value: queued });
    if (this.failure !== null) {
      const err = this.failure;
      this.failure = null;
      return Promise.reject(err);
    }
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiting = reject;
    });
  }

  async return(): Promise<IteratorResult<FeedEvent<T>>> {
    if (!this.done) {
      this.done = true;
      this.queue.length = 0;
      const resolve = this.waiting;
      this.waiting = this.failWaiting = undefined;
      resolve?.({ done: true, value: undefined });
      await this.leave();
    }
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
