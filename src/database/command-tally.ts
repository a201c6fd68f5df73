/**
 * Counting the database commands a call sent.
 *
 * Why a value passed along rather than driver events: concurrent requests share one client, so
 * command events cannot be attributed to a request. Every function that talks to MongoDB takes an
 * optional tally instead and adds each command it sends, so a strategy can report commands per
 * user (the stats) and tests can assert command counts.
 */
export interface CommandTally {
  commands: number;
  /**
   * Transactions run again after a TransientTransactionError, and commits sent again after an
   * UnknownTransactionCommitResult (./transaction.ts); absent until the first.
   */
  transactionRetries?: number;
  /** Of those retries, the ones after a WriteConflict: another transaction wrote the same document. */
  writeConflicts?: number;
}

/** Adds one sent command to the tally, when there is one. */
export function countCommand(tally: CommandTally | undefined): void {
  if (tally) tally.commands += 1;
}

/** Adds one transaction retry to the tally, and one write conflict when that was its cause. */
export function countTransactionRetry(tally: CommandTally | undefined, conflict: boolean): void {
  if (!tally) return;
  tally.transactionRetries = (tally.transactionRetries ?? 0) + 1;
  if (conflict) tally.writeConflicts = (tally.writeConflicts ?? 0) + 1;
}
