/**
 * Commands inside multi-document transactions (`lsid` + `txnNumber` + `autocommit: false`),
 * `commitTransaction` and `abortTransaction`, and the error labels mongod attaches to them.
 * The session table is state/transactions.ts; the snapshot view and conflicts are
 * engine/transaction.ts. What mongod does and this module does too:
 *
 * - Only the first command may carry `startTransaction: true` and a `readConcern` (`local`,
 *   `majority` or `snapshot`; all three read the transaction's snapshot here); later ones
 *   carry neither, and no command but commit and abort may carry a `writeConcern`.
 * - Only find, getMore, killCursors, insert, update, delete, findAndModify, aggregate,
 *   distinct, create and createIndexes run in a transaction; anything else, and any command
 *   on the admin, config or local database, is OperationNotSupportedInTransaction (263).
 * - Any error inside the transaction aborts it: a write error (E11000) fails the whole command
 *   instead of being reported per statement, and later commands get NoSuchTransaction.
 * - Labels (error_labels.cpp): TransientTransactionError on WriteConflict, LockTimeout,
 *   snapshot errors, NoSuchTransaction (on commit and abort only without a writeConcernError)
 *   and, before commit, on retryable errors (network, not-primary, shutdown); on commit and
 *   abort, retryable errors get RetryableWriteError instead. UnknownTransactionCommitResult
 *   is the driver's label, never the server's.
 */
import { CommandContext, CommandDefinition } from './context';
import {
  CommandError,
  ErrorCode,
  RETRIABLE_CODES,
  TRANSIENT_TRANSACTION_ERROR,
} from '../engine/errors';
import { Document, isNumeric, isPlainDocument, numberOf } from '../engine/values';
import { sessionKeyOf, txnNumberOf } from '../state/transactions';

const ALLOWED_IN_TRANSACTION = new Set([
  'find',
  'getMore',
  'killCursors',
  'insert',
  'update',
  'delete',
  'findAndModify',
  'findandmodify',
  'aggregate',
  'distinct',
  'create',
  'createIndexes',
  'commitTransaction',
  'abortTransaction',
]);

/** Stages that read server state rather than the snapshot; mongod refuses them in transactions. */
const STAGES_REFUSED = new Set([
  '$changeStream',
  '$collStats',
  '$currentOp',
  '$indexStats',
  '$listSessions',
]);

const SYSTEM_DATABASES = new Set(['admin', 'config', 'local']);

const READ_CONCERN_LEVELS = new Set(['local', 'majority', 'snapshot']);

/** TransientTransactionError whatever the command: conflicts, lock waits, snapshot errors. */
const TRANSIENT_CODES = new Set([
  ErrorCode.WriteConflict,
  ErrorCode.LockTimeout,
  ErrorCode.PreparedTransactionInProgress,
  239, // SnapshotTooOld
  ErrorCode.SnapshotUnavailable,
]);

export function isTransactionCommand(command: Document): boolean {
  return command.autocommit !== undefined || command.startTransaction !== undefined;
}

function isCommitOrAbort(name: string): boolean {
  return name === 'commitTransaction' || name === 'abortTransaction';
}

/**
 * The labels mongod gives an error of a command inside a transaction (see the header); `code`
 * is the command's error code, `writeConcernCode` its writeConcernError's, either absent.
 */
export function transactionErrorLabels(
  name: string,
  code: number | undefined,
  writeConcernCode: number | undefined,
): string[] {
  const ending = isCommitOrAbort(name);
  if (code !== undefined) {
    const transient =
      TRANSIENT_CODES.has(code as never) ||
      (code === ErrorCode.NoSuchTransaction && !(ending && writeConcernCode !== undefined)) ||
      (!ending && RETRIABLE_CODES.has(code));
    if (transient) return [TRANSIENT_TRANSACTION_ERROR];
  }
  if (
    ending &&
    ((code !== undefined && RETRIABLE_CODES.has(code)) ||
      (writeConcernCode !== undefined && RETRIABLE_CODES.has(writeConcernCode)))
  ) {
    return ['RetryableWriteError'];
  }
  return [];
}

function withLabels(error: CommandError, name: string): CommandError {
  const labels = transactionErrorLabels(name, error.code, undefined);
  if (labels.length === 0) return error;
  return new CommandError(error.code, error.message, { ...error.extra, errorLabels: labels });
}

function refuseOutsideAllowList(name: string, command: Document, database: string): void {
  if (!ALLOWED_IN_TRANSACTION.has(name)) {
    throw new CommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      `Cannot run '${name}' in a multi-document transaction.`,
    );
  }
  if (isCommitOrAbort(name)) return;
  if (SYSTEM_DATABASES.has(database)) {
    throw new CommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      `Cannot run command against the '${database}' database in a transaction.`,
    );
  }
  if (name === 'aggregate' && Array.isArray(command.pipeline)) {
    for (const stage of command.pipeline) {
      const stageName = isPlainDocument(stage) ? Object.keys(stage)[0] : undefined;
      if (stageName && STAGES_REFUSED.has(stageName)) {
        throw new CommandError(
          ErrorCode.OperationNotSupportedInTransaction,
          `Operation not permitted in transaction :: caused by :: ${stageName} cannot be used in a transaction`,
        );
      }
    }
  }
  if (command.writeConcern !== undefined) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'writeConcern is not allowed within a multi-statement transaction',
    );
  }
}

function checkStartOptions(command: Document): void {
  if (command.startTransaction !== true) {
    throw new CommandError(ErrorCode.InvalidOptions, 'startTransaction can only be true');
  }
  const readConcern = command.readConcern;
  if (!isPlainDocument(readConcern) || readConcern.level === undefined) return;
  if (!READ_CONCERN_LEVELS.has(String(readConcern.level))) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      `The readConcern level must be either 'local' (default), 'majority' or 'snapshot' in order to run in a transaction`,
    );
  }
}

/**
 * What waiting for commit's or abort's write concern gives on a one-member set, as mongod
 * answers after applying: more than one member asked for is UnsatisfiableWriteConcern (100), a
 * mode other than majority UnknownReplWriteConcern (79), both as a writeConcernError.
 */
function withWriteConcernOutcome(command: Document, reply: Document): Document {
  const concern = command.writeConcern;
  const w = isPlainDocument(concern) ? concern.w : undefined;
  if (typeof w === 'string' && w !== 'majority') {
    return {
      ...reply,
      writeConcernError: {
        code: ErrorCode.UnknownReplWriteConcern,
        codeName: 'UnknownReplWriteConcern',
        errmsg: `No write concern mode named '${w}' found in replica set configuration`,
      },
    };
  }
  if (isNumeric(w) && numberOf(w) > 1) {
    return {
      ...reply,
      writeConcernError: {
        code: ErrorCode.UnsatisfiableWriteConcern,
        codeName: 'UnsatisfiableWriteConcern',
        errmsg: 'Not enough data-bearing nodes',
      },
    };
  }
  return reply;
}

/** The first statement error of a write reply, which inside a transaction fails the command. */
function firstWriteError(reply: Document): CommandError | null {
  const errors = reply.writeErrors;
  if (!Array.isArray(errors) || errors.length === 0) return null;
  const { index: _index, code, errmsg, ...extra } = errors[0] as Document;
  return new CommandError(Number(code), String(errmsg), extra);
}

/**
 * Runs a command carrying `autocommit` (see the header): starts, continues, commits or aborts
 * the session's transaction, running other commands against its view of the store.
 */
export function runInTransaction(
  definition: CommandDefinition,
  command: Document,
  context: CommandContext,
): Document | Promise<Document> {
  const name = definition.name;
  const { transactions } = context.server;
  if (!context.server.replica) {
    throw new CommandError(
      ErrorCode.IllegalOperation,
      'Transaction numbers are only allowed on a replica set member or mongos',
    );
  }
  const session = sessionKeyOf(command.lsid);
  try {
    if (command.autocommit !== false) {
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'Specifying autocommit=true is not allowed.',
      );
    }
    const txnNumber = txnNumberOf(command);
    refuseOutsideAllowList(name, command, context.database);
    let transaction;
    if (command.startTransaction !== undefined) {
      checkStartOptions(command);
      transaction = transactions.start(session, txnNumber, command.lsid as Document);
    } else {
      if (command.readConcern !== undefined) {
        throw new CommandError(
          ErrorCode.InvalidOptions,
          'Only the first command in a transaction may specify a readConcern',
        );
      }
      transaction = transactions.continue(session, txnNumber, name === 'commitTransaction');
    }
    if (name === 'commitTransaction') {
      if (transaction) transactions.commit(session);
      return withWriteConcernOutcome(command, { ok: 1 });
    }
    if (name === 'abortTransaction') {
      transactions.abort(session);
      return withWriteConcernOutcome(command, { ok: 1 });
    }
    const reply = definition.run(command, {
      ...context,
      server: { ...context.server, store: transaction! },
    });
    if (reply instanceof Promise) return reply;
    const failed = firstWriteError(reply);
    if (failed) throw failed;
    return reply;
  } catch (error) {
    if (!(error instanceof CommandError)) throw error;
    if (!isCommitOrAbort(name)) transactions.abort(session);
    throw withLabels(error, name);
  }
}

function outsideTransaction(name: string): CommandDefinition['run'] {
  return () => {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      `${name} must be run within a transaction (with lsid, txnNumber and autocommit: false)`,
    );
  };
}

export const commitTransaction: CommandDefinition = {
  name: 'commitTransaction',
  fields: ['recoveryToken'],
  run: outsideTransaction('commitTransaction'),
};

export const abortTransaction: CommandDefinition = {
  name: 'abortTransaction',
  fields: ['recoveryToken'],
  run: outsideTransaction('abortTransaction'),
};
