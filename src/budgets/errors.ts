/**
 * The refusal of a caller budget: retryable, and the client is told when (`retryAfter`, whole
 * seconds, at least 1), which budget and how large it is. Over HTTP a request refused whole answers
 * 429 with `Retry-After` (src/http/limits.ts); a field refused alone carries the same extensions.
 */
import { DomainError } from '../errors';
import type { BudgetName } from '../limits';

export class RateLimitedError extends DomainError {
  readonly code = 'RATE_LIMITED';
  /** The HTTP status of a request refused whole for it. */
  readonly status = 429;

  constructor(
    readonly budget: BudgetName,
    readonly retryAfter: number,
    window: { points: number; seconds: number },
  ) {
    super(
      `This caller's ${budget} budget (${window.points} per ${window.seconds} s) is spent; retry after ${retryAfter} s`,
      { retryable: true },
    );
  }
}

/** Whole seconds until `ms` from now has passed, at least 1 (a client waits at least a second). */
export function secondsUntil(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
