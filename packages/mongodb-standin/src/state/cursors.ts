/**
 * Open cursors: the remaining results of a find or aggregate, materialized when the command ran
 * (a snapshot: later writes do not change what getMore returns), and change streams, which hold
 * no results but read the change history at each getMore (change-stream.ts). Ids are Int64,
 * never 0 (0 means "exhausted" on the wire).
 *
 * No client can make cursors exhaust the server. A cursor holds its remaining documents
 * (references to stored ones; projected and aggregated results are copies, hence a modest
 * budget), so what cursors pin is counted in documents held, and bounded in total
 * (`maxHeldDocuments`) and in number (`maxCursors`). A cursor is dropped when drained, killed,
 * left idle for `idleTimeoutMs` (mongod's cursorTimeoutMillis, 10 minutes by default), or, when
 * a new cursor would pass a bound, as the least recently used one: its owner's next getMore
 * gets CursorNotFound (43), as after a timeout, while clients that keep reading keep their
 * cursors. A single result larger than the whole budget is refused with ExceededMemoryLimit
 * (146) rather than held.
 */
import { Long } from 'bson';
import { CommandError, ErrorCode } from '../engine/errors';
import { Document } from '../engine/values';
import { ChangeStream } from './change-stream';

export interface CursorLimits {
  idleTimeoutMs: number;
  maxCursors: number;
  maxHeldDocuments: number;
}

export const DEFAULT_CURSOR_LIMITS: CursorLimits = {
  idleTimeoutMs: 10 * 60 * 1000,
  maxCursors: 10_000,
  maxHeldDocuments: 1_000_000,
};

interface OpenCursor {
  namespace: string;
  remaining: Document[];
  position: number;
  lastUsed: number;
  stream?: ChangeStream;
}

export interface CursorBatch {
  batch: Document[];
  id: Long;
}

export class CursorRegistry {
  /** in least-recently-used order: a used cursor moves to the end */
  private readonly open = new Map<string, OpenCursor>();
  private nextId = BigInt(Math.floor(Math.random() * 2 ** 40)) + 1n;
  private held = 0;

  constructor(private readonly limits: CursorLimits = DEFAULT_CURSOR_LIMITS) {}

  /** Open cursors and the documents they hold, for tests and serverStatus. */
  get usage(): { cursors: number; heldDocuments: number } {
    this.dropIdle();
    return { cursors: this.open.size, heldDocuments: this.held };
  }

  /** First batch of `results`; the rest stays behind a new cursor id unless `single` or drained. */
  openCursor(
    namespace: string,
    results: Document[],
    batchSize: number | undefined,
    single = false,
  ): CursorBatch {
    const size = batchSize ?? 101;
    const batch = results.slice(0, size);
    if (single || batch.length >= results.length) return { batch, id: Long.ZERO };
    const holding = results.length - batch.length;
    if (holding > this.limits.maxHeldDocuments) {
      throw new CommandError(
        ErrorCode.ExceededMemoryLimit,
        `the MongoDB stand-in's cursors may hold at most ${this.limits.maxHeldDocuments} documents; this result leaves ${holding} behind a cursor (read it in one batch, or narrow it)`,
      );
    }
    const id = this.register(
      {
        namespace,
        remaining: results,
        position: batch.length,
        lastUsed: Date.now(),
      },
      holding,
    );
    return { batch, id };
  }

  /** A cursor for a change stream (it holds no documents). */
  openStream(namespace: string, stream: ChangeStream): Long {
    return this.register(
      { namespace, remaining: [], position: 0, lastUsed: Date.now(), stream },
      0,
    );
  }

  /** The change stream behind a cursor, or undefined when it is an ordinary cursor. */
  streamOf(id: Long, namespace: string): ChangeStream | undefined {
    const cursor = this.lookup(id, namespace);
    cursor.lastUsed = Date.now();
    return cursor.stream;
  }

  /** Whether a cursor is still open (a change stream's may be killed while its getMore waits). */
  isOpen(id: Long): boolean {
    return this.open.has(id.toString());
  }

  private register(cursor: OpenCursor, holding: number): Long {
    this.dropIdle();
    for (const key of this.open.keys()) {
      if (
        this.open.size < this.limits.maxCursors &&
        this.held + holding <= this.limits.maxHeldDocuments
      )
        break;
      this.close(key);
    }
    const id = this.nextId++;
    this.open.set(id.toString(), cursor);
    this.held += holding;
    return Long.fromBigInt(id);
  }

  private lookup(id: Long, namespace: string): OpenCursor {
    this.dropIdle();
    const key = id.toString();
    const cursor = this.open.get(key);
    if (!cursor) throw new CommandError(ErrorCode.CursorNotFound, `cursor id ${key} not found`);
    if (cursor.namespace !== namespace) {
      throw new CommandError(
        ErrorCode.Unauthorized,
        `Requested getMore on namespace '${namespace}', but cursor belongs to a different namespace ${cursor.namespace}`,
      );
    }
    return cursor;
  }

  /** Next batch; all that remains when batchSize is absent (mongod caps by bytes, results here are small). */
  getMore(id: Long, namespace: string, batchSize: number | undefined): CursorBatch {
    const key = id.toString();
    const cursor = this.lookup(id, namespace);
    const end = batchSize ? cursor.position + batchSize : cursor.remaining.length;
    const batch = cursor.remaining.slice(cursor.position, end);
    cursor.position += batch.length;
    this.held -= batch.length;
    this.open.delete(key);
    if (cursor.position >= cursor.remaining.length) return { batch, id: Long.ZERO };
    cursor.lastUsed = Date.now();
    this.open.set(key, cursor);
    return { batch, id };
  }

  /** Kills cursors; returns which ids were open and which were not. */
  kill(ids: Long[]): { killed: Long[]; notFound: Long[] } {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const id of ids) (this.close(id.toString()) ? killed : notFound).push(id);
    return { killed, notFound };
  }

  /** Closes every cursor (their results may hold what the store no longer does). */
  closeAll(): void {
    this.open.clear();
    this.held = 0;
  }

  /** Closes one cursor (a change stream's after an error or an invalidate). */
  closeCursor(id: Long): void {
    this.close(id.toString());
  }

  private close(key: string): boolean {
    const cursor = this.open.get(key);
    if (!cursor) return false;
    this.open.delete(key);
    this.held -= cursor.remaining.length - cursor.position;
    return true;
  }

  private dropIdle(): void {
    const oldest = Date.now() - this.limits.idleTimeoutMs;
    for (const [key, cursor] of this.open) {
      if (cursor.lastUsed >= oldest) break;
      this.close(key);
    }
  }
}
