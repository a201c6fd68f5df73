/**
 * TRANSACTION: the `$inc` of the `userid` counter and the insert of the users it numbers run in
 * one multi-document transaction (`w: majority`, snapshot reads; src/database/transaction.ts), as
 * PostgreSQL users number invoices with a counter row updated in the insert's transaction.
 *
 * Invariants: an id is consumed only when its user is stored. A refused insert (a duplicate
 * email or idempotency key, a taken `_id`, a fault, a process that dies before the commit) rolls
 * the `$inc` back with it, so the ids this strategy stores are consecutive: no hole, no duplicate,
 * whatever fails. A deleted user's id is never issued again (the counter does not go down).
 *
 * Conflicts: a transaction that `$inc`s the counter conflicts (WriteConflict, a
 * TransientTransactionError) with any other write of that counter after its snapshot, so within
 * one process a transactional round runs alone (`UserIdTurns.alone`: the other strategies' rounds
 * and other transactions wait in the process, not at the server; see ../user-id-turns.ts for the
 * deadlock this also avoids); only writes of other processes conflict, and those are retried with
 * bounded, jittered attempts (`TRANSACTION_MAX_ATTEMPTS`), then ID_CONTENTION (retryable) with
 * nothing stored.
 *
 * A database without transactions (a standalone) is refused with BAD_USER_INPUT on `strategy`
 * naming the reason; there is no fallback to a strategy that leaves holes.
 */
import {
  isTransactionsUnsupported,
  runInTransaction,
  TransactionRetriesExhausted,
} from '../../database/index';
import { BadUserInputError, ContentionError } from '../../errors';
import { valuesOf } from '../../sequences/index';
import { NO_SETTINGS, type Strategy } from '../strategy';
import {
  assertIssuable,
  COUNTER_MAX_ROUNDS,
  repairCounterDrift,
  USER_ID_SEQUENCE,
} from '../user-id-counter';

/**
 * Whole-transaction attempts of one round. Only other processes conflict (see the header); with
 * the jittered pauses of src/database/transaction.ts (10 ms doubling, at most 320 ms) eight
 * attempts span about a second, beyond which the client had better hear ID_CONTENTION.
 */
export const TRANSACTION_MAX_ATTEMPTS = 8;

function translated(error: unknown): unknown {
  if (error instanceof TransactionRetriesExhausted) {
    return new ContentionError(
      `The user id counter met transactions of other service instances ${error.attempts} times in a row; nothing was stored. Please retry.`,
    );
  }
  if (isTransactionsUnsupported(error)) {
    return new BadUserInputError(
      'The TRANSACTION strategy needs multi-document transactions, which this database does not ' +
        'offer (it is a standalone server; a replica set or a sharded cluster has them). Nothing ' +
        'was stored; pick another strategy or run MongoDB as a replica set.',
      { field: 'strategy' },
    );
  }
  return error;
}

export const transaction: Strategy = {
  properties: {
    fedByCounter: true,
    consecutiveIds: true,
    idsInTimeOrder: true,
    reissuesDeletedNewest: false,
    leavesNoHoles: true,
    groupsCreations: true,
  },
  settings: NO_SETTINGS,
  createSource(deps) {
    return {
      maxRounds: COUNTER_MAX_ROUNDS,
      async takeWithInsert(count, tally, insert, repairFirst = false) {
        try {
          return await deps.turns.alone(async () => {
            if (repairFirst) await repairCounterDrift(deps, tally);
            return runInTransaction(
              deps.client,
              async (session) => {
                const range = await deps.sequences.allocate(
                  USER_ID_SEQUENCE,
                  count,
                  tally,
                  session,
                );
                const ids = valuesOf(range);
                assertIssuable(ids);
                return insert(ids, session);
              },
              {
                maxAttempts: TRANSACTION_MAX_ATTEMPTS,
                maxTimeMS: deps.maxTimeMS,
                tally,
              },
            );
          });
        } catch (err) {
          throw translated(err);
        }
      },
    };
  },
};
