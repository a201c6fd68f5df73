/**
 * The sequences component's domain errors.
 *
 * Contract: `SequenceExhaustedError` is thrown before anything is written, so a refused allocation
 * never consumes a value; the caller may show its message as is. Invalid names, scopes, counts and
 * definitions are the shared `BadUserInputError` (re-exported here) with `field` naming the input.
 */
import { BadUserInputError, ContentionError, DomainError } from '../errors.js';

export { BadUserInputError };

/** Allocating would pass the sequence's `max` (or 2^53 - 1); the counter is unchanged. */
export class SequenceExhaustedError extends DomainError {
  readonly code = 'SEQUENCE_EXHAUSTED';
}

/** A counter update lost every bounded retry to concurrent writers; nothing changed, retry the request. */
export class SequenceContentionError extends ContentionError {}
