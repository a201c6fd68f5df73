/**
 * Each logical session's transaction, as mongod keeps it: the highest transaction number the
 * session used for a transaction, and that transaction's state (in progress with its view of
 * the store, committed, or aborted). The rules are mongod's (transaction_participant.cpp):
 *
 * - `startTransaction: true` with a higher txnNumber starts one (aborting an older one still in
 *   progress); a lower one is TransactionTooOld (225); the same one again is refused.
 * - Every later command of it carries the same txnNumber and `autocommit: false`; a number the
 *   session is not running, or an aborted transaction, is NoSuchTransaction (251).
 * - `commitTransaction` of a committed transaction answers ok again (a retried commit), so a
 *   driver that lost the reply learns the outcome; after an abort it is NoSuchTransaction.
 * - A transaction open longer than `lifetimeMs` (mongod's transactionLifetimeLimitSeconds,
 *   60 s, settable with setParameter; as on mongod a new value holds for transactions started
 *   after it) is aborted by a timer, releasing its locks; so is one whose session ends.
 *
 * The table holds at most one entry per session; sessions are what drivers pool (a few per
 * client), and an entry without an open transaction holds no data.
 */
import { Long } from 'bson';
import { CommandError, ErrorCode, transientTransactionError } from '../engine/errors';
import { Store } from '../engine/store';
import { Transaction } from '../engine/transaction';
import { Document, isPlainDocument } from '../engine/values';

export const DEFAULT_TRANSACTION_LIFETIME_MS = 60_000;

type Outcome = 'inProgress' | 'committed' | 'aborted';

interface SessionTransaction {
  txnNumber: bigint;
  outcome: Outcome;
  transaction: Transaction;
  /** why it was aborted, when the server aborted it */
  abortReason?: string;
  expiry: NodeJS.Timeout;
}

/** The key of a session: its lsid's id (and uid, when authenticated). */
export function sessionKeyOf(lsid: unknown): string {
  if (!isPlainDocument(lsid) || lsid.id === undefined) {
    throw new CommandError(ErrorCode.InvalidOptions, 'a transaction requires a session (lsid)');
  }
  const bytes = (value: unknown) =>
    value && typeof value === 'object' && 'buffer' in value
      ? Buffer.from((value as { buffer: Uint8Array }).buffer).toString('hex')
      : String(value);
  return lsid.uid === undefined ? bytes(lsid.id) : `${bytes(lsid.id)}:${bytes(lsid.uid)}`;
}

export function txnNumberOf(command: Document): bigint {
  const value = command.txnNumber;
  if (value === undefined || value === null) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      "'autocommit' field requires a transaction number to also be specified",
    );
  }
  return BigInt(String(value));
}

export class TransactionTable {
  private readonly sessions = new Map<string, SessionTransaction>();
  private nextId = 1;

  constructor(
    private readonly store: Store,
    /** for transactions started from now on (setParameter transactionLifetimeLimitSeconds) */
    public lifetimeMs: number = DEFAULT_TRANSACTION_LIFETIME_MS,
  ) {}

  /** Transactions in progress (for tests and serverStatus-like reporting). */
  get open(): number {
    let count = 0;
    for (const entry of this.sessions.values()) if (entry.outcome === 'inProgress') count++;
    return count;
  }

  /** Starts transaction `txnNumber` of the session (see the header for the rules). */
  start(session: string, txnNumber: bigint, lsid: Document): Transaction {
    const entry = this.sessions.get(session);
    if (entry && txnNumber < entry.txnNumber) {
      throw new CommandError(
        ErrorCode.TransactionTooOld,
        `Cannot start transaction ${txnNumber} on session ${session} because a newer transaction ${entry.txnNumber} has already started.`,
      );
    }
    if (entry && txnNumber === entry.txnNumber) {
      throw new CommandError(
        ErrorCode.ConflictingOperationInProgress,
        `Cannot start a transaction at given transaction number ${txnNumber} a transaction with the same number is in state ${entry.outcome}`,
      );
    }
    if (entry) this.finish(entry, 'aborted');
    const transaction = new Transaction(this.store, this.nextId++, {
      lsid,
      txnNumber: Long.fromBigInt(txnNumber),
    });
    const lifetimeMs = this.lifetimeMs;
    const expiry = setTimeout(() => {
      const current = this.sessions.get(session);
      if (current?.transaction !== transaction || current.outcome !== 'inProgress') return;
      current.abortReason = `it exceeded transactionLifetimeLimitSeconds (${lifetimeMs / 1000})`;
      this.finish(current, 'aborted');
    }, lifetimeMs);
    expiry.unref();
    this.sessions.set(session, { txnNumber, outcome: 'inProgress', transaction, expiry });
    return transaction;
  }

  /**
   * The session's transaction `txnNumber`, for a command after its first: in progress, or
   * committed when `committedIsOk` (a retried commit). Anything else is refused as mongod does.
   */
  continue(session: string, txnNumber: bigint, committedIsOk: boolean): Transaction | null {
    const entry = this.sessions.get(session);
    if (!entry || txnNumber > entry.txnNumber) {
      throw new CommandError(
        ErrorCode.NoSuchTransaction,
        `Given transaction number ${txnNumber} does not match any in-progress transactions.${entry ? ` The active transaction number is ${entry.txnNumber}` : ''}`,
      );
    }
    if (txnNumber < entry.txnNumber) {
      throw new CommandError(
        ErrorCode.TransactionTooOld,
        `Cannot continue transaction ${txnNumber} on session ${session} because a newer transaction ${entry.txnNumber} has already started.`,
      );
    }
    if (entry.outcome === 'aborted') {
      throw transientTransactionError(
        ErrorCode.NoSuchTransaction,
        `Transaction with { txnNumber: ${txnNumber} } has been aborted${entry.abortReason ? ` because ${entry.abortReason}` : ''}.`,
      );
    }
    if (entry.outcome === 'committed') {
      if (committedIsOk) return null;
      throw new CommandError(
        ErrorCode.TransactionCommitted,
        `Transaction with { txnNumber: ${txnNumber} } has been committed.`,
      );
    }
    return entry.transaction;
  }

  commit(session: string): void {
    const entry = this.sessions.get(session)!;
    entry.transaction.commit();
    this.finish(entry, 'committed');
  }

  /** Aborts the session's transaction in progress, if any (an error inside it, an abort). */
  abort(session: string): void {
    const entry = this.sessions.get(session);
    if (entry?.outcome === 'inProgress') this.finish(entry, 'aborted');
  }

  /** Sessions ended by the client: their transactions in progress are aborted. */
  endSessions(sessions: string[]): void {
    for (const session of sessions) {
      this.abort(session);
      this.sessions.delete(session);
    }
  }

  /**
   * Aborts every transaction in progress: the server is stopping, or a client killed every
   * session (`killAllSessions`; the sessions live on, as with killSessions).
   */
  abortAll(): void {
    for (const entry of this.sessions.values()) {
      if (entry.outcome === 'inProgress') this.finish(entry, 'aborted');
    }
  }

  private finish(entry: SessionTransaction, outcome: Outcome): void {
    clearTimeout(entry.expiry);
    if (entry.outcome === 'inProgress' && outcome === 'aborted') entry.transaction.abort();
    entry.outcome = outcome;
  }
}
