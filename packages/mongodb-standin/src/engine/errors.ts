/**
 * Command failures as MongoDB reports them. Every refusal the stand-in makes carries one of
 * MongoDB's own numeric codes and its exact codeName, so driver code that branches on `code`
 * behaves as it would against mongod. `extra` holds fields mongod adds beside errmsg
 * (keyPattern/keyValue on E11000). Nothing here formats wire replies; the server does that.
 */
/**
 * MongoDB's error codes by their codeName (src/mongo/base/error_codes.yml), the one place the
 * stand-in spells a code as a number: the codes it raises, and those tests make a failCommand
 * fail point return (network, shutdown and primary-change errors), so replies carry their
 * codeName. Codes mongod raises only as unnamed assertions are in LocationCode below.
 */
export const ErrorCode = {
  InternalError: 1,
  BadValue: 2,
  HostUnreachable: 6,
  HostNotFound: 7,
  FailedToParse: 9,
  Unauthorized: 13,
  TypeMismatch: 14,
  Overflow: 15,
  IllegalOperation: 20,
  LockTimeout: 24,
  NamespaceNotFound: 26,
  StaleShardVersion: 63,
  IndexNotFound: 27,
  NoMatchingDocument: 47,
  PathNotViable: 28,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  MaxTimeMSExpired: 50,
  DollarPrefixedFieldName: 52,
  CommandNotFound: 59,
  WriteConcernFailed: 64,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  NoReplicationEnabled: 76,
  UnknownReplWriteConcern: 79,
  UnsatisfiableWriteConcern: 100,
  ConflictingOperationInProgress: 117,
  SnapshotUnavailable: 246,
  NoSuchTransaction: 251,
  TransactionCommitted: 256,
  OperationNotSupportedInTransaction: 263,
  TransactionExceededLifetimeLimitSeconds: 290,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  InvalidIndexSpecificationOption: 197,
  NetworkTimeout: 89,
  ShutdownInProgress: 91,
  WriteConflict: 112,
  FailedToSatisfyReadPreference: 133,
  StaleEpoch: 150,
  PrimarySteppedDown: 189,
  IncompleteTransactionHistory: 217,
  QueryFeatureNotAllowed: 224,
  TransactionTooOld: 225,
  SnapshotTooOld: 239,
  RetryChangeStream: 234,
  CursorKilled: 237,
  InvalidResumeToken: 260,
  ChangeStreamFatalError: 280,
  ChangeStreamHistoryLost: 286,
  ExceededMemoryLimit: 146,
  ExceededTimeLimit: 262,
  PreparedTransactionInProgress: 267,
  SocketException: 9001,
  NotWritablePrimary: 10107,
  BSONObjectTooLarge: 10334,
  DuplicateKey: 11000,
  InterruptedAtShutdown: 11600,
  Interrupted: 11601,
  InterruptedDueToReplStateChange: 11602,
  NotPrimaryNoSecondaryOk: 13435,
  StaleConfig: 13388,
  NotPrimaryOrSecondary: 13436,
  OutOfDiskSpace: 14031,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Codes mongod raises from assertions that have no name of their own; their codeName is
 * `Location<code>`. The keys here only say what each is for.
 */
export const LocationCode = {
  /** a $regex pattern PCRE2 rejects */
  InvalidRegex: 51091,
  /** a $options letter other than i, m, s, x, u */
  InvalidRegexOption: 51108,
  /** options given both in a regex literal and in $options */
  RegexOptionsTwice: 51075,
  /** a regex match that failed while running (PCRE2's match limit; the stand-in's time budget) */
  RegexMatchFailed: 51156,
  /** a distinct reply above the 16 MB BSON limit */
  DistinctTooBig: 17217,
  /** `$$name` with no such variable */
  UndefinedVariable: 17276,
  /** $replaceRoot/$replaceWith to something that is no document */
  ReplacementNotDocument: 40228,
  /** $replaceRoot without newRoot */
  MissingNewRoot: 40231,
  /** $set/$addFields with a specification that is no document */
  AddFieldsNotDocument: 40272,
  /** $project with a specification that is no document */
  ProjectNotDocument: 15969,
  /** a $project that both computes or includes fields and excludes one other than _id */
  ExclusionInInclusionProjection: 31254,
  /** $unset with something other than field names */
  UnsetNotFieldNames: 31002,
  /** txnNumber on a command that is neither a retryable write nor in a transaction */
  TxnNumberNotRetryable: 50768,
  /** $changeStream on a standalone server */
  ChangeStreamNeedsReplicaSet: 40573,
  /** a pipeline stage name mongod does not know */
  UnrecognizedStage: 40324,
  /** a field $changeStream does not take */
  UnknownChangeStreamField: 40415,
  /** more than one of resumeAfter, startAfter, startAtOperationTime */
  ConflictingResumeOptions: 40674,
  /** $changeStream anywhere but first */
  ChangeStreamNotFirst: 40602,
} as const;

/**
 * mongod's NotPrimaryError category: in a replica set, a reply failing with one of these (or
 * with a writeConcernError of one) carries the server's topologyVersion, which tells the driver
 * whether the error is news (a newer topology) or stale (the one it knows).
 */
export const NOT_PRIMARY_CODES: ReadonlySet<number> = new Set([
  ErrorCode.NotWritablePrimary,
  ErrorCode.NotPrimaryNoSecondaryOk,
  ErrorCode.NotPrimaryOrSecondary,
  ErrorCode.PrimarySteppedDown,
  ErrorCode.InterruptedDueToReplStateChange,
]);

/** NotPrimaryError and ShutdownError together: what drivers take for a change of topology. */
export const STATE_CHANGE_CODES: ReadonlySet<number> = new Set([
  ...NOT_PRIMARY_CODES,
  ErrorCode.ShutdownInProgress,
  ErrorCode.InterruptedAtShutdown,
]);

/**
 * mongod's RetriableError category (error_codes.yml): a retryable write failing with one of
 * these, or with a writeConcernError of one, is labelled RetryableWriteError.
 */
export const RETRIABLE_CODES: ReadonlySet<number> = new Set([
  ErrorCode.HostUnreachable,
  ErrorCode.HostNotFound,
  ErrorCode.NetworkTimeout,
  ErrorCode.ShutdownInProgress,
  ErrorCode.PrimarySteppedDown,
  ErrorCode.ExceededTimeLimit,
  ErrorCode.SocketException,
  ErrorCode.NotWritablePrimary,
  ErrorCode.InterruptedAtShutdown,
  ErrorCode.InterruptedDueToReplStateChange,
  ErrorCode.NotPrimaryNoSecondaryOk,
  ErrorCode.NotPrimaryOrSecondary,
]);

const CODE_NAMES = new Map<number, string>(
  Object.entries(ErrorCode).map(([name, code]) => [code, name]),
);

/** Name mongod uses for a code; codes it does not name here are reported as `Location<code>`. */
export function codeNameOf(code: number): string {
  return CODE_NAMES.get(code) ?? `Location${code}`;
}

export class CommandError extends Error {
  readonly codeName: string;
  constructor(
    /** an ErrorCode, or any number a failCommand fail point was told to return */
    readonly code: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.codeName = codeNameOf(code);
  }
}

/** Refusal of something the stand-in deliberately does not implement (never a silent wrong answer). */
export function unsupported(what: string): CommandError {
  return new CommandError(ErrorCode.BadValue, `the MongoDB stand-in does not support ${what}`);
}

/** The label mongod puts on errors after which the whole transaction may be retried. */
export const TRANSIENT_TRANSACTION_ERROR = 'TransientTransactionError';

/** An error that aborted a transaction and says it may be retried from the start. */
export function transientTransactionError(code: number, message: string): CommandError {
  return new CommandError(code, message, { errorLabels: [TRANSIENT_TRANSACTION_ERROR] });
}

export function badValue(message: string): CommandError {
  return new CommandError(ErrorCode.BadValue, message);
}
