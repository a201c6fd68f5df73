/**
 * Retryable writes, as a replica-set mongod runs them: a write command (insert, update,
 * delete, findAndModify) carrying an `lsid` and a `txnNumber` runs at most once. The first
 * attempt runs and leaves a record for the session: its txnNumber and the reply; a retry with
 * the same lsid and txnNumber runs nothing and answers the stored reply; a txnNumber below the
 * session's last is TransactionTooOld (225). A standalone refuses txnNumber with
 * IllegalOperation (20), as mongod does.
 *
 * The records are documents of `config.transactions` (mongod keeps its session records there
 * too; the reply is held as opaque BSON in `standinReply`, a stand-in field), so the journal
 * and snapshots keep them with everything else: a retry after a restart still finds the
 * result. A write's changes and its record are made in one command, which the journal writes
 * as one record (server.ts `endCommand`): a crash keeps both or neither, so a retry after a
 * restart either answers the stored reply or runs a write that never happened. Records expire
 * with their session: no retryable write on it for logicalSessionTimeoutMinutes (measured by
 * the injectable `now`), or named by endSessions.
 *
 * Only replies with ok: 1 (write errors included) are recorded; a command that failed as a
 * whole wrote nothing, so its record is removed and running its retry again gives mongod's
 * answer.
 */
import { BSON, Binary, Long } from 'bson';
import { CommandError, ErrorCode, LocationCode, RETRIABLE_CODES } from '../engine/errors';
import { Store } from '../engine/store';
import { Document, formatDocument, isNumeric, isPlainDocument, numberOf } from '../engine/values';
import { LOGICAL_SESSION_TIMEOUT_MINUTES } from './replica-set';
import { DESERIALIZE_OPTIONS } from '../wire/messages';

export const RETRYABLE_COMMANDS = new Set(['insert', 'update', 'delete', 'findAndModify']);
const SESSION_TIMEOUT_MS = LOGICAL_SESSION_TIMEOUT_MINUTES * 60_000;
const SWEEP_EVERY_MS = 60_000;

function txnNumberOf(command: Document): Long {
  const value = command.txnNumber;
  if (value instanceof Long) return value;
  throw new CommandError(
    ErrorCode.TypeMismatch,
    `BSON field 'OperationSessionInfo.txnNumber' is the wrong type '${typeof value}', expected type 'long'`,
  );
}

/** A retryable write (not in a transaction), as the command says. */
export function isRetryableWrite(command: Document): boolean {
  return command.txnNumber !== undefined && command.autocommit === undefined;
}

/**
 * mongod's rule for the RetryableWriteError label: a retryable write whose error, or whose
 * writeConcernError, has a code of the RetriableError category. (A failCommand fail point that
 * names errorLabels replaces this, as in mongod.)
 */
export function withRetryableWriteLabel(command: Document, reply: Document): Document {
  if (!isRetryableWrite(command)) return reply;
  const codeOf = (value: unknown) => (isNumeric(value) ? numberOf(value) : undefined);
  const concern = reply.writeConcernError;
  const retriable =
    (reply.ok === 0 && RETRIABLE_CODES.has(codeOf(reply.code)!)) ||
    (isPlainDocument(concern) && RETRIABLE_CODES.has(codeOf(concern.code)!));
  if (!retriable) return reply;
  const labels = Array.isArray(reply.errorLabels) ? reply.errorLabels : [];
  return { ...reply, errorLabels: [...labels, 'RetryableWriteError'] };
}

export class RetryableWrites {
  private lastSweep: number;

  constructor(
    private readonly store: Store,
    /** false on a standalone, which refuses txnNumber */
    private readonly replicaSet: boolean,
    /** the clock records expire by (milliseconds since the epoch); tests move it */
    private readonly now: () => number = Date.now,
  ) {
    this.lastSweep = now();
  }

  private get records() {
    return this.store.get('config', 'transactions');
  }

  /** Whether `command` is a retryable write this class must run (throws for a misplaced txnNumber). */
  applies(command: Document, name: string): boolean {
    if (!isRetryableWrite(command)) return false;
    if (!this.replicaSet)
      throw new CommandError(
        ErrorCode.IllegalOperation,
        'Transaction numbers are only allowed on a replica set member or mongos',
      );
    if (!isPlainDocument(command.lsid))
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'Transaction number requires a session ID to also be specified',
      );
    if (!RETRYABLE_COMMANDS.has(name))
      throw new CommandError(
        LocationCode.TxnNumberNotRetryable,
        `txnNumber may only be provided for multi-document transactions and retryable write commands. autocommit:false was not provided, and ${name} is not a retryable write command.`,
      );
    return true;
  }

  /**
   * Runs a retryable write once: the stored reply for a retry, TransactionTooOld for an older
   * txnNumber, else `run` with its record written in the same journal record.
   */
  run(command: Document, name: string, run: () => Document): Document {
    const lsid = command.lsid as Document;
    const txnNumber = txnNumberOf(command);
    const record = this.records?.byId(lsid);
    if (record) {
      const last = record.txnNum as Long;
      if (txnNumber.lessThan(last))
        throw new CommandError(
          ErrorCode.TransactionTooOld,
          `Retryable write with txnNumber ${txnNumber} is prohibited on session ${formatDocument(lsid)} because a newer retryable write with txnNumber ${last} has already started on this session.`,
        );
      if (txnNumber.equals(last)) return this.retried(record, name);
    }
    this.sweep();
    // only a write that ran is recorded: one that throws or fails as a whole leaves the record
    const reply = run();
    if (reply.ok === 1) this.save(lsid, txnNumber, name, reply);
    return reply;
  }

  /** Forgets the sessions endSessions names. */
  end(lsids: Document[]): void {
    for (const lsid of lsids) this.forget(lsid);
  }

  private forget(lsid: Document): void {
    const record = this.records?.byId(lsid);
    if (record) this.records!.remove(record);
  }

  private retried(record: Document, name: string): Document {
    if (record.standinCommand !== name)
      throw new CommandError(
        ErrorCode.IncompleteTransactionHistory,
        `txnNumber ${record.txnNum} of this session was used by ${record.standinCommand}, not ${name}`,
      );
    const reply = record.standinReply as Binary;
    return BSON.deserialize(Buffer.from(reply.buffer), DESERIALIZE_OPTIONS);
  }

  /** The session's record of its last retryable write and that write's reply. */
  private save(lsid: Document, txnNumber: Long, name: string, reply: Document): void {
    const { collection } = this.store.obtain('config', 'transactions');
    const next = {
      _id: lsid,
      txnNum: txnNumber,
      lastWriteDate: new Date(this.now()),
      standinCommand: name,
      standinReply: new Binary(BSON.serialize(reply)),
    };
    const current = collection.byId(lsid);
    if (current) collection.replace(current, next);
    else collection.insert(next);
  }

  /** Removes records of sessions unused for logicalSessionTimeoutMinutes (at most once a minute). */
  private sweep(): void {
    const now = this.now();
    const records = this.records;
    if (!records || now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    const expired = [...records.all()].filter(
      (record) => now - (record.lastWriteDate as Date).getTime() > SESSION_TIMEOUT_MS,
    );
    for (const record of expired) records.remove(record);
  }
}
