/**
 * The sequences component's domain errors.
 *
 * Contract: `SequenceExhaustedError` is thrown before anything is written, so a refused allocation
 * never consumes a value; the caller may show its message as is. Invalid names, scopes, counts and
 * definitions are the shared `BadUserInputError` (re-exported here) with `field` naming the input.
 * A sequence the caller may not see is `SequenceNotFoundError`, exactly like one that does not
 * exist, so a client learns nothing about other clients' sequences.
 */
import { BadUserInputError, ContentionError, DomainError, ForbiddenError } from '../errors';

export { BadUserInputError, ForbiddenError };

/** Allocating would pass the sequence's `max` (or 2^53 - 1); the counter is unchanged. */
export class SequenceExhaustedError extends DomainError {
  readonly code = 'SEQUENCE_EXHAUSTED';
}

/** A counter update lost every bounded retry to concurrent writers; nothing changed, retry the request. */
export class SequenceContentionError extends ContentionError {}

/** No sequence of this name and scope exists for the caller; nothing was created. */
export class SequenceNotFoundError extends DomainError {
  readonly code = 'SEQUENCE_NOT_FOUND';

  constructor(description: string) {
    super(`No sequence ${description} exists; create it with createSequence first.`, {
      field: 'name',
    });
  }
}

/**
 * A counter document holds a value no sequence can have (written by someone else: a string, NaN,
 * a fraction, a value out of range). Nothing was issued from it; the message names the document
 * and the repair, since only an operator can tell which value is right.
 */
export class SequenceCorruptError extends DomainError {
  readonly code = 'SEQUENCE_CORRUPT';
}

/**
 * No value of a gapless sequence is held by this reservation now: it was confirmed or released
 * already, or its hold expired and the value was handed out again. Nothing changed.
 */
export class ReservationNotFoundError extends DomainError {
  readonly code = 'RESERVATION_NOT_FOUND';
}
