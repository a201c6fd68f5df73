/**
 * The one place errors become what clients see: `MutationError` data for expected failures, and
 * top-level errors (`extensions.code`, `field`, `retryable`) for everything request-level.
 *
 * - DomainError (src/errors.ts and its subclasses): its code, field and retryable, its message.
 * - A transient database condition (`isTransientDatabaseError`, src/database: unreachable, timing
 *   out, stepping down, failing a write concern, ...): SERVICE_UNAVAILABLE, retryable, with a
 *   generic message (the outcome of a write is unknown, so clients retry with an idempotency key).
 * - A scalar refusing its input: BAD_USER_INPUT, also when graphql-js reports it as a validation
 *   failure of a literal.
 * - Apollo's own errors (parse, validation, BAD_REQUEST...): unchanged, except those it leaves
 *   without a code though they are the client's (`clientCodeOf`): BAD_REQUEST or BAD_USER_INPUT.
 * - Anything else is a bug: INTERNAL_SERVER_ERROR with a generic message; the detail goes to the log
 *   only. Stack traces are added by Apollo outside production and never in it.
 *
 * Every error an answer carries names the request's id (`extensions.requestId`, `withRequestId`),
 * which a client quotes and an operator finds in the log; what is logged while formatting goes
 * to the request's logger (`logErrorsWith`, so those lines carry the id too).
 *
 * Bounded (src/limits.ts `ERRORS`): graphql-js echoes the offending input in variable and validation
 * errors, so each message is cut at `ERRORS.messageLength` characters, and `withinErrorBounds` keeps
 * at most `ERRORS.perResponse` errors in an answer, the last one counting those left out.
 */
import {
  GraphQLEnumType,
  GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import { RateLimitedError } from '../budgets/index';
import { isTransientDatabaseError } from '../database/index';
import { DomainError } from '../errors';
import { ERRORS } from '../limits';
import type { Logger } from '../logger';
import type { ErrorCode, MutationError } from './generated/schema-types';
import { ScalarInputError } from './scalars';

const SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE';
const UNAVAILABLE_MESSAGE =
  'The database is unavailable right now; retry the request (with its idempotency key).';
const INTERNAL_MESSAGE = 'Internal server error';

/**
 * graphql-js stops coercing variables after 50 errors with this error, which carries no code (so
 * Apollo would call it internal); it is the client's input, like the 50 errors before it.
 */
const TOO_MANY_VARIABLE_ERRORS = 'Too many errors processing variables';

/**
 * The client's mistake, though Apollo gives it no code: an error raised before execution (no
 * path) that Apollo itself answers with a 4xx (a persisted-query hash that does not match its
 * query, an unsupported persisted-query version), or graphql-js giving up on bad variables.
 */
function clientCodeOf(error: GraphQLError): string | null {
  if (error.path !== undefined) return null;
  if (error.message.startsWith(TOO_MANY_VARIABLE_ERRORS))
    return ApolloServerErrorCode.BAD_USER_INPUT;
  const status = (error.extensions.http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500
    ? ApolloServerErrorCode.BAD_REQUEST
    : null;
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

/** The error with its message cut to `ERRORS.messageLength` characters, saying so. */
function withBoundedMessage(formatted: GraphQLFormattedError): GraphQLFormattedError {
  if (formatted.message.length <= ERRORS.messageLength) return formatted;
  const cut = formatted.message.length - ERRORS.messageLength;
  return {
    ...formatted,
    message: `${formatted.message.slice(0, ERRORS.messageLength)}… (${cut} more characters left out)`,
  };
}

/**
 * At most `ERRORS.perResponse` errors of an answer (Apollo's formatted result, changed in place):
 * the first ones, and one more that says how many were left out, with the code of the first.
 */
export function withinErrorBounds(result: { errors?: readonly GraphQLFormattedError[] }): void {
  const { errors } = result;
  if (errors === undefined || errors.length <= ERRORS.perResponse) return;
  const kept = errors.slice(0, ERRORS.perResponse - 1);
  const left = errors.length - kept.length;
  result.errors = [
    ...kept,
    {
      message: `${left} more errors were left out (an answer holds at most ${ERRORS.perResponse})`,
      extensions: { code: errors[0].extensions?.code },
    },
  ];
}

/** The logger of the request each error arose in, set before Apollo formats them. */
const requestLoggers = new WeakMap<object, Logger>();

/** Makes the formatter log about `errors` (a request's, not yet formatted) to `logger`. */
export function logErrorsWith(errors: readonly unknown[], logger: Logger): void {
  for (const error of errors) {
    if (typeof error === 'object' && error !== null) requestLoggers.set(error, logger);
  }
}

/** Every error of an answer (a formatted result, changed in place) tagged with `requestId`. */
export function withRequestId(
  result: { errors?: readonly GraphQLFormattedError[] },
  requestId: string,
): void {
  if (result.errors === undefined) return;
  result.errors = result.errors.map((error) => ({
    ...error,
    extensions: { ...error.extensions, requestId },
  }));
}

export function createErrorFormatter(logger: Logger) {
  const formatError = createUnboundedFormatter(logger);
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError =>
    withBoundedMessage(formatError(formatted, error));
}

function createUnboundedFormatter(serviceLogger: Logger) {
  return function formatError(
    formatted: GraphQLFormattedError,
    error: unknown,
  ): GraphQLFormattedError {
    const logger =
      (typeof error === 'object' && error !== null ? requestLoggers.get(error) : undefined) ??
      serviceLogger;
    for (const cause of causes(error)) {
      if (cause instanceof DomainError) {
        return withExtensions(formatted, cause.message, {
          code: cause.code,
          ...(cause.field === undefined ? {} : { field: cause.field }),
          ...(cause.retryable === undefined ? {} : { retryable: cause.retryable }),
          ...(cause instanceof RateLimitedError
            ? { retryAfter: cause.retryAfter, budget: cause.budget }
            : {}),
        });
      }
      if (isTransientDatabaseError(cause)) {
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
    if (formatted.extensions?.code !== ApolloServerErrorCode.INTERNAL_SERVER_ERROR)
      return formatted;
    if (original instanceof GraphQLError) {
      const code = clientCodeOf(original);
      return code === null ? formatted : withExtensions(formatted, formatted.message, { code });
    }
    logger.error({ err: original, path: formatted.path }, 'unexpected error in a GraphQL request');
    return withExtensions(formatted, INTERNAL_MESSAGE, {
      code: ApolloServerErrorCode.INTERNAL_SERVER_ERROR,
    });
  };
}

/**
 * Errors as data: a DomainError whose code is a value of the schema's `ErrorCode` enum is
 * an expected failure, returned in its payload's `error` (or a `createUsers` item's, or a
 * `sequences` edge's). Any other error
 * (authentication, a deadline, the database unavailable, a bug) is request-level and rethrown, so
 * it becomes a top-level error through `formatError`. The enum in schema.graphql is the one list.
 */
export function mutationErrorOf(error: unknown, schema: GraphQLSchema): MutationError {
  const codes = schema.getType('ErrorCode');
  if (
    !(error instanceof DomainError) ||
    !(codes instanceof GraphQLEnumType) ||
    codes.getValue(error.code) === undefined
  ) {
    throw error;
  }
  return {
    code: error.code as ErrorCode,
    message: error.message,
    field: error.field ?? null,
    retryable: error.retryable ?? false,
  };
}

/** Runs `work`; an expected failure comes back as `{ error }`, anything else is thrown. */
export async function orMutationError<T>(
  work: () => Promise<T>,
  schema: GraphQLSchema,
): Promise<{ value: T; error?: undefined } | { error: MutationError }> {
  try {
    return { value: await work() };
  } catch (error) {
    return { error: mutationErrorOf(error, schema) };
  }
}
