/**
 * What every command handler receives and returns. Handlers are synchronous on purpose: a
 * command's reads and writes of the store happen in one turn of the event loop, so no other
 * command can interleave (per-document atomicity, findAndModify snapshots). The one exception
 * is a change stream's getMore, which may answer with a promise: it waits for changes between
 * synchronous reads, never inside one. Each handler declares the fields it understands; the
 * registry refuses any other field by name.
 */
import { Long } from 'bson';
import { CursorRegistry } from '../state/cursors';
import { CommandError, ErrorCode } from '../engine/errors';
import type { StoreView } from '../engine/views';
import { Document, isNumeric, isPlainDocument, numberOf } from '../engine/values';
import { Activity } from '../state/activity';
import { ChangeHistory } from '../state/change-history';
import { FailPoints } from '../state/fail-points';
import { TransactionTable } from '../state/transactions';
import { ReplicaSetIdentity } from '../state/replica-set';
import { HelloMonitors } from '../state/hello-monitors';
import { RetryableWrites } from '../state/retryable-writes';
import { SnapshotReads } from '../state/snapshot-reads';
import { TtlMonitor } from '../state/ttl-monitor';

export interface ConnectionInfo {
  id: number;
  appName?: string;
}

export interface ServerState {
  /** the live store, or inside a transaction its view (engine/views.ts) */
  store: StoreView;
  transactions: TransactionTable;
  /** null on a standalone */
  /** the topologyVersion and awaitable hellos, in either mode */
  monitors: HelloMonitors;
  replica: ReplicaSetIdentity | null;
  retryableWrites: RetryableWrites;
  snapshotReads: SnapshotReads;
  /** what change streams read (the oplog) */
  changes: ChangeHistory;
  cursors: CursorRegistry;
  failPoints: FailPoints;
  /** when TTL indexes delete (its period is a parameter) */
  ttl: TtlMonitor;
  activity: Activity;
  startedAt: Date;
  port: number;
  /** The server's clock: what `$$NOW` reads (the wall clock unless a test set another). */
  now(): Date;
}

export interface CommandContext {
  server: ServerState;
  database: string;
  connection: ConnectionInfo;
  /** set when a fail point closes the connection instead of replying (after the command ran) */
  closeConnection?: boolean;
}

export interface CommandDefinition {
  /** canonical name (the first key of the command document) */
  name: string;
  aliases?: string[];
  /**
   * command-specific fields besides the command name and the generic ones every command accepts;
   * 'any' only for the handshake, whose client metadata grows with every driver release
   */
  fields: readonly string[] | 'any';
  run(command: Document, context: CommandContext): Document | Promise<Document>;
}

/** The collection a command addresses (`{ find: 'users' }`). */
export function collectionNameOf(command: Document, name: string): string {
  const value = command[name];
  if (typeof value !== 'string' || value.length === 0) {
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      `collection name has invalid type ${typeof value}`,
    );
  }
  return value;
}

export function optionalDocument(command: Document, field: string): Document | undefined {
  const value = command[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainDocument(value))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${field}' is the wrong type, expected type 'object'`,
    );
  return value;
}

/** A required array-of-documents field (insert.documents, update.updates, delete.deletes). */
export function documentsOf(command: Document, field: string): Document[] {
  const value = command[field];
  if (!Array.isArray(value) || !value.every(isPlainDocument)) {
    throw new CommandError(
      ErrorCode.BadValue,
      `${Object.keys(command)[0]}.${field} must be an array of documents`,
    );
  }
  return value as Document[];
}

export function optionalNumber(command: Document, field: string): number | undefined {
  const value = command[field];
  if (value === undefined || value === null) return undefined;
  if (!isNumeric(value))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${field}' is the wrong type, expected a number`,
    );
  return numberOf(value);
}

export function cursorReply(
  namespace: string,
  batch: Document[],
  id: Long,
  first: boolean,
): Document {
  return {
    cursor: first
      ? { firstBatch: batch, id, ns: namespace }
      : { nextBatch: batch, id, ns: namespace },
    ok: 1,
  };
}
