/**
 * The per-request budget: what one HTTP request may still spend, carried in the GraphQL context.
 *
 * `signal` aborts at the request's deadline (REQUEST_TIMEOUT_MS after the request arrived, body
 * upload included), at the same moment the client is answered 503. Domain write methods take it
 * (`options.signal`) and check it before every database write and between retries, and every root
 * field checks it before it starts, so nothing starts writing after the client was told to retry.
 * A write already sent when the deadline passes may still land: that is why the 503 says to retry
 * with the idempotency key.
 */
import { DomainError } from '../errors';

export interface RequestBudget {
  /** Aborts at the deadline; its reason is a `DeadlineExceededError`. */
  readonly signal: AbortSignal;
}

/** The request ran out of time; the client was (or is being) answered 503 and may retry. */
export class DeadlineExceededError extends DomainError {
  readonly code = 'SERVICE_UNAVAILABLE';

  constructor(timeoutMs: number) {
    super(
      `The request did not complete within ${timeoutMs} ms; retry it (with its idempotency key).`,
      { retryable: true },
    );
  }
}

/**
 * A budget whose signal aborts after `timeoutMs`, then calls `onExpired` (which answers the client),
 * and `end()` to call once the request is answered (it stops the timer).
 */
export function startRequestBudget(
  timeoutMs: number,
  onExpired?: (reason: DeadlineExceededError) => void,
): RequestBudget & { end(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    const reason = new DeadlineExceededError(timeoutMs);
    controller.abort(reason);
    onExpired?.(reason);
  }, timeoutMs);
  return { signal: controller.signal, end: () => clearTimeout(timer) };
}
