/**
 * Open cursors: the remaining results of a find or aggregate, materialized when the command ran
 * (a snapshot: later writes do not change what getMore returns). Ids are Int64, never 0
 * (0 means "exhausted" on the wire). A cursor is dropped when drained, killed, or left idle
 * for 10 minutes (mongod's default cursorTimeoutMillis), so abandoned cursors do not pin memory.
 */
import { Long } from 'bson';
import { CommandError } from '../engine/errors';
import { Document } from '../engine/values';

const IDLE_TIMEOUT_MS = 10 * 60 * 1000;

interface OpenCursor {
  namespace: string;
  remaining: Document[];
  position: number;
  lastUsed: number;
}

export interface CursorBatch {
  batch: Document[];
  id: Long;
}

export class CursorRegistry {
  private readonly open = new Map<string, OpenCursor>();
  private nextId = BigInt(Math.floor(Math.random() * 2 ** 40)) + 1n;

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
    this.dropIdle();
    const id = this.nextId++;
    this.open.set(id.toString(), {
      namespace,
      remaining: results,
      position: batch.length,
      lastUsed: Date.now(),
    });
    return { batch, id: Long.fromBigInt(id) };
  }

  /** Next batch; all that remains when batchSize is absent (mongod caps by bytes, results here are small). */
  getMore(id: Long, namespace: string, batchSize: number | undefined): CursorBatch {
    const key = id.toString();
    const cursor = this.open.get(key);
    if (!cursor) throw new CommandError(43, `cursor id ${key} not found`);
    if (cursor.namespace !== namespace) {
      throw new CommandError(
        13,
        `Requested getMore on namespace '${namespace}', but cursor belongs to a different namespace ${cursor.namespace}`,
      );
    }
    cursor.lastUsed = Date.now();
    const end = batchSize ? cursor.position + batchSize : cursor.remaining.length;
    const batch = cursor.remaining.slice(cursor.position, end);
    cursor.position += batch.length;
    if (cursor.position >= cursor.remaining.length) {
      this.open.delete(key);
      return { batch, id: Long.ZERO };
    }
    return { batch, id };
  }

  /** Kills cursors; returns which ids were open and which were not. */
  kill(ids: Long[]): { killed: Long[]; notFound: Long[] } {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const id of ids) (this.open.delete(id.toString()) ? killed : notFound).push(id);
    return { killed, notFound };
  }

  private dropIdle(): void {
    const oldest = Date.now() - IDLE_TIMEOUT_MS;
    for (const [id, cursor] of this.open) if (cursor.lastUsed < oldest) this.open.delete(id);
  }
}
