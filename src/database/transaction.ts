/**
 * Running work in one multi-document transaction, with the retries the driver's transaction
 * specification prescribes, bounded.
 *
 * Why not `session.withTransaction`: the driver (7.9) retries it for up to 120 seconds, far past
 * a request's deadline, and neither counts nor reports its attempts. Here:
 * - a `TransientTransactionError` (write conflict with another process, a lost primary, an aborted
 *   transaction) runs the whole transaction again, at most `maxAttempts` times in all, after a
 *   jittered pause that grows with the attempt (so two processes that conflicted do not meet again
 *   in step); then `TransactionRetriesExhausted`, with nothing committed;
 * - an `UnknownTransactionCommitResult` (the commit may or may not have been applied) sends the
 *   same `commitTransaction` again, never the work (that could apply it twice), at most
 *   `maxAttempts` times; commit is idempotent for one transaction. Still unknown after that: the
 *   driver's error is handed on (it is transient for `isTransientDatabaseError`: the client
 *   retries, with its idempotency key for exactly-once);
 * - anything else aborts the transaction and is handed on; the work may also answer `commit:
 *   false` to roll everything back (a refused insert, so a counter `$inc` is undone with it).
 * Every retry (a whole transaction, or a commit sent again) is added to the caller's tally, those
 * after a WriteConflict apart, so the stats show what contention costs.
 * Every attempt checks the caller's deadline (`beforeWrite`) before it starts, and so does the
 * commit: a deadline that passed while the work ran rolls it back instead. The transaction
 * writes with `w: majority` and reads a snapshot; its commands carry the caller's `maxTimeMS`
 * (through their collection's `options()`), the commit carries it as `maxCommitTimeMS`.
 *
 * Work done inside a transaction may only be announced once it is committed: `afterCommit(session,
 * fn)` runs `fn` after this runner's commit succeeds, and never for an attempt that is rolled back
 * (aborted, retried, refused): a counter's `$inc` that is undone is no write (the statistics
 * must not count rolled-back increments). A session that is in no transaction runs `fn` at once.
 *
 * Traced (src/telemetry): the whole run is a span `transaction`, the parent of its commands'
 * spans, with an event per retry (`transaction.retry`: the attempt, whether a write conflict
 * caused it, or a commit sent again) and the attempts it took.
 *
 * A standalone server has no transactions: its refusal (IllegalOperation, "Transaction numbers
 * are only allowed on a replica set member or mongos") is told apart by `isTransactionsUnsupported`,
 * so the caller answers that reason instead of a generic failure.
 */
import {
  MongoError,
  MongoErrorLabel,
  MongoServerError,
  type ClientSession,
  type MongoClient,
} from 'mongodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeWrite, type WriteOptions } from './write-options';
import { countCommand, countTransactionRetry, type CommandTally } from './command-tally';
import { TRANSIENT_SERVER_CODES } from './transient';
import { inSpan, type Span } from '../telemetry/index';

/**
 * mongod's answer to a transaction (a txnNumber) on a standalone: "Transaction numbers are only
 * allowed on a replica set member or mongos"; the driver (7.9) answers a write's with a new error,
 * "This MongoDB deployment does not support retryable writes", holding the server's as
 * `originalError`.
 */
const ILLEGAL_OPERATION = 20;
const NO_TRANSACTION_NUMBERS = /transaction numbers/i;

export interface TransactionOptions extends WriteOptions {
  /** Whole-transaction attempts (and, separately, commit attempts). */
  maxAttempts: number;
  /** The commit's server-side bound, as every other command's (DB_TIMEOUT_MS). */
  maxTimeMS: number;
  /** Counts the commit and the abort as the caller's commands, and every retry (with its cause). */
  tally?: CommandTally;
}

/** What the work answers: its value, and whether to commit (false rolls it back). */
export interface TransactionWork<T> {
  commit: boolean;
  value: T;
}

/** Every attempt met a transient error: nothing was committed. */
export class TransactionRetriesExhausted extends Error {
  constructor(
    readonly attempts: number,
    readonly lastError: unknown,
  ) {
    super(
      `The transaction met transient errors ${attempts} times in a row; nothing was committed.`,
    );
  }
}

export function isTransactionsUnsupported(error: unknown): boolean {
  if (!(error instanceof MongoServerError)) return false;
  const server: unknown = error.originalError ?? error;
  return (
    server instanceof MongoServerError &&
    server.code === ILLEGAL_OPERATION &&
    NO_TRANSACTION_NUMBERS.test(server.message)
  );
}

function isWriteConflict(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === TRANSIENT_SERVER_CODES.WriteConflict;
}

function hasLabel(error: unknown, label: string): boolean {
  return error instanceof MongoError && error.hasErrorLabel(label);
}

/** A pause in [base/2, base) with base = 10 ms * 2^(attempt-1), at most 320 ms. */
function backoffMs(attempt: number): number {
  const base = 10 * 2 ** Math.min(attempt - 1, 5);
  return base / 2 + Math.random() * (base / 2);
}

/** What each session's current transaction announces once committed (see the header). */
const committed = new WeakMap<ClientSession, Array<() => void>>();

/** Runs `announce` once `session`'s transaction commits; at once when it is in none. */
export function afterCommit(session: ClientSession | undefined, announce: () => void): void {
  const pending = session === undefined ? undefined : committed.get(session);
  if (pending === undefined || !session!.inTransaction()) {
    announce();
    return;
  }
  pending.push(announce);
}

export function runInTransaction<T>(
  client: MongoClient,
  work: (session: ClientSession) => Promise<TransactionWork<T>>,
  options: TransactionOptions,
): Promise<T> {
  return inSpan('transaction', {}, (span) => runAttempts(client, work, options, span));
}

async function runAttempts<T>(
  client: MongoClient,
  work: (session: ClientSession) => Promise<TransactionWork<T>>,
  options: TransactionOptions,
  span: Span | undefined,
): Promise<T> {
  const session = client.startSession();
  try {
    for (let attempt = 1; ; attempt += 1) {
      span?.setAttribute('transaction.attempts', attempt);
      beforeWrite(options);
      session.startTransaction({
        readConcern: { level: 'snapshot' },
        writeConcern: { w: 'majority' },
        maxCommitTimeMS: options.maxTimeMS,
      });
      const announcements: Array<() => void> = [];
      committed.set(session, announcements);
      try {
        const outcome = await work(session);
        if (!outcome.commit) {
          await abort(session, options.tally);
          return outcome.value;
        }
        // The commit is a write of its own: once the deadline passed (the client was answered
        // 503 while the work waited), it must not start; the catch below rolls the work back.
        beforeWrite(options);
        await commit(client, session, options, span);
        for (const announce of announcements) announce();
        return outcome.value;
      } catch (err) {
        if (session.inTransaction()) await abort(session, options.tally);
        if (!hasLabel(err, MongoErrorLabel.TransientTransactionError)) throw err;
        if (attempt >= options.maxAttempts) throw new TransactionRetriesExhausted(attempt, err);
        countTransactionRetry(options.tally, isWriteConflict(err));
        span?.addEvent('transaction.retry', {
          'transaction.attempt': attempt,
          'transaction.write_conflict': isWriteConflict(err),
        });
        await sleep(backoffMs(attempt));
      }
    }
  } finally {
    await session.endSession().catch(() => undefined);
  }
}

/**
 * Commits, sending the commit again (only the commit) while its result is unknown. A commit that
 * fails for good leaves the transaction open on the server, holding its locks (the counter) until
 * its lifetime ends (60 s on mongod), and the driver refuses an abort after a commit: so the
 * session is killed (`killSessions`, which aborts its transaction at once) before the error is
 * handed on. Were the commit applied after all, killing its session changes nothing.
 */
async function commit(
  client: MongoClient,
  session: ClientSession,
  options: TransactionOptions,
  span: Span | undefined,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    countCommand(options.tally);
    try {
      await session.commitTransaction();
      return;
    } catch (err) {
      const unknown = hasLabel(err, MongoErrorLabel.UnknownTransactionCommitResult);
      if (!unknown || attempt >= options.maxAttempts) {
        countCommand(options.tally);
        await client
          .db('admin')
          .command({ killSessions: [session.id], maxTimeMS: options.maxTimeMS })
          .catch(() => undefined);
        throw err;
      }
      countTransactionRetry(options.tally, false);
      span?.addEvent('transaction.retry', { 'transaction.commit_attempt': attempt });
      await sleep(backoffMs(attempt));
    }
  }
}

/** Rolls back; an abort that fails leaves the server to end the transaction (its lifetime). */
async function abort(session: ClientSession, tally: CommandTally | undefined): Promise<void> {
  countCommand(tally);
  await session.abortTransaction().catch(() => undefined);
}
