/**
 * The base of every error the service means to show its clients.
 *
 * Components throw subclasses (`src/users/errors.ts`, `src/sequences/errors.ts`); the GraphQL layer
 * maps them to `extensions.code` in one place (`src/graphql/errors.ts`). Anything that is not a
 * DomainError is a bug or an outage and is never shown to clients verbatim.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
  /** The input field the error is about, so a frontend can show it beside that field. */
  readonly field?: string;
  /** True when the same request may succeed if simply sent again. */
  readonly retryable?: boolean;

  constructor(message: string, options?: { field?: string; retryable?: boolean; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.field = options?.field;
    this.retryable = options?.retryable;
  }
}

/** Input the client can correct: the message is written to be shown to a person. */
export class BadUserInputError extends DomainError {
  readonly code = 'BAD_USER_INPUT';
}

/** The caller's role does not allow this operation (e.g. a client touching `userid`). */
export class ForbiddenError extends DomainError {
  readonly code = 'FORBIDDEN';
}

/**
 * Concurrent writers kept taking what this request needed (an id, a counter update) until its
 * bounded retries ran out. Nothing was stored; the same request may simply be sent again.
 */
export class ContentionError extends DomainError {
  readonly code = 'ID_CONTENTION';

  constructor(message: string) {
    super(message, { retryable: true });
  }
}
