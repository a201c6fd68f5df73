/**
 * Telling "the database cannot serve this right now" from every other failure.
 *
 * Why one predicate: the outcome of a write that failed this way is unknown (it may have been
 * applied), so clients must retry it with its idempotency key; everything else is either the
 * client's mistake or a bug. Callers (the GraphQL error mapping, readiness) ask this module only,
 * and nothing outside src/database names a driver error class or a server error code.
 *
 * What counts, in order:
 * - the driver's own error labels (`MongoErrorLabel`): a retryable write or read, a pool reset or
 *   a transaction that may be retried;
 * - driver errors that mean no server could be used in time: network errors and timeouts, server
 *   selection, a pool or client closed under the request, waiting for a connection;
 * - a write concern that was not satisfied (the write may or may not be durable);
 * - a bulk write (`insertMany`) that failed on one of the above: the driver wraps that error in a
 *   MongoBulkWriteError as its `errorResponse`, and the wrapper need not keep its labels (seen
 *   when the database stopped under a group transaction's insertMany: an unlabelled wrapper of
 *   "connection closed", answered INTERNAL_SERVER_ERROR before this rule);
 * - the server codes named in `TRANSIENT_SERVER_CODES`, each named once: shutdown, stepdown, time
 *   limits, lock and write conflicts, replica-set states that pass, and a disk that cannot take
 *   writes now (OutOfDiskSpace; a failing or read-only journal answers NotWritablePrimary, as a
 *   member that cannot write): the database refuses the write before acknowledging it, and
 *   takes it again once the disk has room.
 */
import {
  MongoBulkWriteError,
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';

/** Server error codes that mean "not now" rather than "never", by MongoDB's own names. */
export const TRANSIENT_SERVER_CODES = Object.freeze({
  HostUnreachable: 6,
  HostNotFound: 7,
  LockTimeout: 24,
  MaxTimeMSExpired: 50,
  WriteConcernFailed: 64,
  NetworkTimeout: 89,
  ShutdownInProgress: 91,
  WriteConflict: 112,
  FailedToSatisfyReadPreference: 133,
  ReadConcernMajorityNotAvailableYet: 134,
  PrimarySteppedDown: 189,
  NetworkInterfaceExceededTimeLimit: 202,
  ExceededTimeLimit: 262,
  SocketException: 9001,
  NotWritablePrimary: 10107,
  InterruptedAtShutdown: 11600,
  InterruptedDueToReplStateChange: 11602,
  NotPrimaryNoSecondaryOk: 13435,
  NotPrimaryOrSecondary: 13436,
  OutOfDiskSpace: 14031,
});

const TRANSIENT_CODES: ReadonlySet<number> = new Set(Object.values(TRANSIENT_SERVER_CODES));

/** Labels the driver (or the server) puts on errors whose operation may simply be sent again. */
const TRANSIENT_LABELS: readonly MongoErrorLabel[] = [
  MongoErrorLabel.RetryableWriteError,
  MongoErrorLabel.RetryableError,
  MongoErrorLabel.TransientTransactionError,
  MongoErrorLabel.ResetPool,
  MongoErrorLabel.PoolRequestedRetry,
  MongoErrorLabel.InterruptInUseConnections,
  MongoErrorLabel.SystemOverloadedError,
];

/**
 * Pool errors the driver does not export as classes: no connection free within waitQueueTimeoutMS,
 * or the pool closed under the request (shutdown, failover).
 */
const UNEXPORTED_POOL_ERRORS: ReadonlySet<string> = new Set([
  'MongoWaitQueueTimeoutError',
  'MongoPoolClosedError',
]);

const UNAVAILABLE_ERROR_CLASSES = [
  MongoNetworkError,
  MongoServerSelectionError,
  MongoOperationTimeoutError,
  MongoNotConnectedError,
  MongoTopologyClosedError,
  MongoServerClosedError,
  MongoWriteConcernError,
] as const;

/** True when the error says the database could not serve the request in time, not that it was wrong. */
export function isTransientDatabaseError(err: unknown): boolean {
  if (!(err instanceof MongoError)) return false;
  if (TRANSIENT_LABELS.some((label) => err.hasErrorLabel(label))) return true;
  if (UNEXPORTED_POOL_ERRORS.has(err.name)) return true;
  if (UNAVAILABLE_ERROR_CLASSES.some((errorClass) => err instanceof errorClass)) return true;
  if (
    err instanceof MongoBulkWriteError &&
    err.errorResponse instanceof MongoError &&
    isTransientDatabaseError(err.errorResponse)
  ) {
    return true;
  }
  // An unordered insert whose writes were applied but whose write concern was not satisfied.
  if (err instanceof MongoBulkWriteError && err.result?.getWriteConcernError()) return true;
  return typeof err.code === 'number' && TRANSIENT_CODES.has(err.code);
}
