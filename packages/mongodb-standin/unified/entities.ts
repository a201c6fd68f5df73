/**
 * The entity map of one unified test: every entity by id, with its kind (the operation tables
 * are keyed by kind), the events each client observed (command, CMAP and SDAM, in the order the
 * driver emitted them) and the log messages it observes, the connections each client has checked
 * out, the lsid each session had
 * when it was created (`$$sessionLsid` still names it after endSession), and the fail points set,
 * so the test can turn them off at its end.
 */
import {
  AbstractCursor,
  ChangeStream,
  ClientSession,
  Collection,
  Db,
  Document,
  MongoClient,
  GridFSBucket,
} from 'mongodb';
import { Mismatch } from './mismatch';

export type EntityKind =
  | 'client'
  | 'database'
  | 'collection'
  | 'session'
  | 'bucket'
  | 'changeStream'
  | 'cursor'
  | 'thread'
  | 'value';

export interface ObservedEvent {
  /** the format's name of the event: `commandStartedEvent`, `poolClearedEvent`, ... */
  kind: string;
  event: Document;
}

/** A log message a client's driver wrote, as the format matches it. */
export interface LoggedMessage {
  level: string;
  component: string;
  data: Document;
}

/** A thread entity: operations queued on it run one after another, beside the test's own. */
export class Thread {
  private queue: Promise<void> = Promise.resolve();
  private failure: unknown = null;

  run(operation: () => Promise<void>): void {
    this.queue = this.queue.then(operation).catch((error: unknown) => {
      this.failure ??= error;
    });
  }

  /** Waits for every queued operation; rethrows the first unexpected error among them. */
  async settled(): Promise<void> {
    await this.queue;
    if (this.failure !== null) throw this.failure;
  }
}

export function kindOf(value: unknown): EntityKind {
  if (value instanceof MongoClient) return 'client';
  if (value instanceof Db) return 'database';
  if (value instanceof Collection) return 'collection';
  if (value instanceof ClientSession) return 'session';
  if (value instanceof GridFSBucket) return 'bucket';
  if (value instanceof ChangeStream) return 'changeStream';
  if (value instanceof AbstractCursor) return 'cursor';
  if (value instanceof Thread) return 'thread';
  return 'value';
}

export class Entities {
  private readonly byId = new Map<string, { kind: EntityKind; value: unknown }>();
  /** events observed by each client, by client id */
  readonly events = new Map<string, ObservedEvent[]>();
  /** log messages each client observes (observeLogMessages), by client id */
  readonly logs = new Map<string, LoggedMessage[]>();
  /** connections each client has checked out and not yet checked in, by client id */
  readonly checkedOut = new Map<string, number>();
  /** each session's lsid as created */
  readonly lsids = new Map<string, Document>();
  /** fail points to turn off when the test ends, with the client that set them */
  readonly failPoints: Array<{ client: MongoClient; name: string }> = [];

  set(id: string, value: unknown): void {
    if (this.byId.has(id)) throw new Mismatch(`entity ${id} defined twice`);
    this.byId.set(id, { kind: kindOf(value), value });
    if (value instanceof ClientSession && value.id) this.lsids.set(id, value.id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  kind(id: string): EntityKind {
    const entry = this.byId.get(id);
    if (!entry) throw new Mismatch(`unknown entity ${id}`);
    return entry.kind;
  }

  value(id: string): unknown {
    this.kind(id);
    return this.byId.get(id)!.value;
  }

  client(id: string): MongoClient {
    return this.typed(id, 'client') as MongoClient;
  }

  database(id: string): Db {
    return this.typed(id, 'database') as Db;
  }

  session(id: string): ClientSession {
    return this.typed(id, 'session') as ClientSession;
  }

  thread(id: string): Thread {
    return this.typed(id, 'thread') as Thread;
  }

  private typed(id: string, kind: EntityKind): unknown {
    if (this.kind(id) !== kind)
      throw new Mismatch(`entity ${id} is a ${this.kind(id)}, not ${kind}`);
    return this.byId.get(id)!.value;
  }

  /**
   * Waits for every thread, ends every session and closes every client (the sessions' lsids stay
   * recorded).
   */
  async close(): Promise<void> {
    for (const { kind, value } of this.byId.values())
      if (kind === 'thread') await (value as Thread).settled().catch(() => undefined);
    for (const { kind, value } of this.byId.values())
      if (kind === 'session') await (value as ClientSession).endSession().catch(() => undefined);
    for (const { kind, value } of this.byId.values())
      if (kind === 'client') await (value as MongoClient).close().catch(() => undefined);
  }
}
