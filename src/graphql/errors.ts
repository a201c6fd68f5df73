/**
 * The one place errors become what clients see (`extensions.code`, `field`, `retryable`).
 *
 * - DomainError (src/errors.ts and its subclasses): its code, field and retryable, its message.
 * - The database unreachable, timing out, stepping down or failing a write concern:
 *   SERVICE_UNAVAILABLE, retryable, with a generic message (the outcome of a write is unknown, so
 *   clients retry with an idempotency key).
 * - A scalar refusing its input: BAD_USER_INPUT, also when graphql-js reports it as a validation
 *   failure of a literal.
 * - Apollo's own errors (parse, validation, BAD_REQUEST...): unchanged.
 * - Anything else is a bug: INTERNAL_SERVER_ERROR with a generic message; the detail goes to the log
 *   only. Stack traces are added by Apollo outside production and never in it.
 */
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import {
  MongoBulkWriteError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { DomainError } from '../errors.js';
import type { Logger } from '../logger.js';
import { ScalarInputError } from './scalars.js';

/** Refused because the request lacks the admin bearer token. */
export class ForbiddenError extends DomainError {
  readonly code = 'FORBIDDEN';
}

const SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE';
const UNAVAILABLE_MESSAGE =
  'The database is unavailable right now; retry the request (with its idempotency key).';
const INTERNAL_MESSAGE = 'Internal server error';

/** Server error codes that mean "not now" rather than "never": shutdown, stepdown, time limits. */
const TRANSIENT_SERVER_CODES = new Set([
  6, 7, 50, 64, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436,
]);

/**
 * Pool errors the driver does not export as classes: no connection free within waitQueueTimeoutMS,
 * or the pool closed under the request (shutdown, failover).
 */
const UNAVAILABLE_DRIVER_ERROR_NAMES = new Set([
  'MongoWaitQueueTimeoutError',
  'MongoPoolClosedError',
]);

/** True when the error says the database could not be used in time, not that the request was wrong. */
function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof MongoError)) return false;
  if (
    UNAVAILABLE_DRIVER_ERROR_NAMES.has(err.name) ||
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoOperationTimeoutError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError ||
    err instanceof MongoServerClosedError ||
    err instanceof MongoWriteConcernError
  ) {
    return true;
  }
  // An unordered insert whose writes were applied but whose write concern was not satisfied.
  if (err instanceof MongoBulkWriteError && err.result?.getWriteConcernError()) return true;
  if (err.hasErrorLabel('RetryableWriteError') || err.hasErrorLabel('TransientTransactionError'))
    return true;
  return typeof err.code === 'number' && TRANSIENT_SERVER_CODES.has(err.code);
}

/** The errors a GraphQLError wraps, outermost first (resolver errors, validation of literals). */
function* causes(error: unknown): Generator<unknown> {
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth += 1) {
    yield current;
    current = current instanceof GraphQLError ? current.originalError : undefined;
  }
}

function withExtensions(
  formatted: GraphQLFormattedError,
  message: string,
  extensions: Record<string, unknown>,
) {
  const { stacktrace } = formatted.extensions ?? {};
  return {
    ...formatted,
    message,
    extensions: { ...extensions, ...(stacktrace === undefined ? {} : { stacktrace }) },
  };
}

export function createErrorFormatter(logger: Logger) {
  return function formatError(
    formatted: GraphQLFormattedError,
    error: unknown,
  ): GraphQLFormattedError {
    for (const cause of causes(error)) {
      if (cause instanceof DomainError) {
        return withExtensions(formatted, cause.message, {
          code: cause.code,
          ...(cause.field === undefined ? {} : { field: cause.field }),
          ...(cause.retryable === undefined ? {} : { retryable: cause.retryable }),
        });
      }
      if (isDatabaseUnavailable(cause)) {
        logger.warn({ err: cause, path: formatted.path }, 'database unavailable');
        return withExtensions(formatted, UNAVAILABLE_MESSAGE, {
          code: SERVICE_UNAVAILABLE,
          retryable: true,
        });
      }
      if (cause instanceof ScalarInputError) {
        return {
          ...formatted,
          extensions: { ...formatted.extensions, code: ApolloServerErrorCode.BAD_USER_INPUT },
        };
      }
    }
    const original = [...causes(error)].at(-1);
    if (
      original instanceof GraphQLError ||
      formatted.extensions?.code !== ApolloServerErrorCode.INTERNAL_SERVER_ERROR
    ) {
      return formatted;
    }
    logger.error({ err: original, path: formatted.path }, 'unexpected error in a GraphQL request');
    return withExtensions(formatted, INTERNAL_MESSAGE, {
      code: ApolloServerErrorCode.INTERNAL_SERVER_ERROR,
    });
  };
}

/** The shape an item error of `createUsers` takes: the same code and field as a top-level error. */
export function itemErrorOf(error: DomainError): {
  code: string;
  message: string;
  field: string | null;
} {
  return { code: error.code, message: error.message, field: error.field ?? null };
}
