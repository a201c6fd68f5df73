/**
 * The errors creating, changing or deleting a user can end in, each written to be shown to a person.
 *
 * Invariants: every refusal of the client's input names the input field (`name`, `email`,
 * `invitedById`, `idempotencyKey`, `id`), so a frontend can show it beside that field; each
 * condition a client handles differently has its own code (EMAIL_TAKEN, INVITER_NOT_FOUND,
 * IDEMPOTENCY_KEY_REUSED, USER_NOT_FOUND, ID_TAKEN; malformed input is BAD_USER_INPUT); only contention and
 * unavailable indexes say "send the same request again" (`retryable: true`).
 */
import { ContentionError, DomainError } from '../errors';

/** Another user already has this email (the partial unique index on `email` refused it). */
export class DuplicateEmailError extends DomainError {
  readonly code = 'EMAIL_TAKEN';

  constructor() {
    super('A user with this email already exists.', { field: 'email' });
  }
}

/** `importUsers`: another user already holds this id, with another name or email. */
export class IdTakenError extends DomainError {
  readonly code = 'ID_TAKEN';

  constructor(id: string) {
    super(`Another user already has id ${id}; nothing was stored for this input.`, {
      field: 'id',
    });
  }
}

/** `invitedById` names no stored user. */
export class UnknownInviterError extends DomainError {
  readonly code = 'INVITER_NOT_FOUND';

  constructor() {
    super('No user has the id given as the inviter.', { field: 'invitedById' });
  }
}

/** The idempotency key was first used with other input, so this is not a retry of that request. */
export class IdempotencyKeyReusedError extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';

  constructor() {
    super('This idempotency key was already used with different input; use a new key.', {
      field: 'idempotencyKey',
    });
  }
}

/**
 * Every attempt found its id taken by a concurrent writer. Nothing was stored; the same request
 * (with the same idempotency key, if any) may simply be sent again.
 */
export class IdContentionError extends ContentionError {
  constructor(attempts: number) {
    super(
      `Could not get a free user id after ${attempts} attempts because of concurrent writers; please retry.`,
    );
  }
}

/**
 * The unique indexes of `users` were missing and could not be rebuilt yet (see indexes.ts), so a
 * user with an email or key cannot be acknowledged. Nothing was kept; the request may be retried.
 */
export class UniqueIndexesUnavailableError extends DomainError {
  readonly code = 'SERVICE_UNAVAILABLE';

  constructor() {
    super(
      'Users with an email or idempotency key cannot be created until the unique indexes of users are rebuilt; please retry.',
      { retryable: true },
    );
  }
}

/** No user has this id (or it is not a user id at all). */
export class UserNotFoundError extends DomainError {
  readonly code = 'USER_NOT_FOUND';

  constructor() {
    super('No user has this id.', { field: 'id' });
  }
}
