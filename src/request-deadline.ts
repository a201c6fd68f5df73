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
import { DomainError } from './errors';

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
 * The signal of a request's deadline: an `AbortSignal` whose event machinery is made only when
 * something listens.
 *
 * Why: Node 20 builds every `AbortSignal` as an `EventTarget` whose prototype is then swapped
 * (2.7 µs, and an object in V8's slow mode that every later access and the collector pay for);
 * one per request was about 3% of the service's CPU per `createUser` (bench/results/0.4.md, "CPU
 * levers of 0.4"), though nearly every request only ever asks `aborted` or `throwIfAborted()`.
 * Those are plain fields here; `addEventListener`, `onabort` and `dispatchEvent` go to a real
 * signal made on first use (already aborted, with the reason, when the deadline has passed), which
 * `abort` then aborts, so a listener hears the deadline as it would on a real signal. The event
 * a listener receives has that real signal as its `target`. It is not an `instanceof AbortSignal`:
 * a Node API that checks (none is given it) would need the real one.
 */
export class DeadlineSignal implements AbortSignal {
  aborted = false;
  reason: unknown = undefined;
  private controller: AbortController | undefined;

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** Aborts the signal (once) with `reason`, telling the listeners of its real signal if any. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }

  /** The real signal behind this one, made now if need be (aborted already if this one is). */
  private real(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get onabort(): AbortSignal['onabort'] {
    return this.controller?.signal.onabort ?? null;
  }

  set onabort(handler: AbortSignal['onabort']) {
    this.real().onabort = handler;
  }

  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: AddEventListenerOptions | boolean,
  ): void {
    if (listener !== null) this.real().addEventListener(type, listener, options);
  }

  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: EventListenerOptions | boolean,
  ): void {
    if (listener !== null) this.controller?.signal.removeEventListener(type, listener, options);
  }

  dispatchEvent(event: Event): boolean {
    return this.real().dispatchEvent(event);
  }
}

/**
 * A request's deadline: its signal aborts `timeoutMs` after it starts, then `onExpired` runs (it
 * answers the client); `end()`, once the request is done, stops the timer.
 */
export class RequestDeadline implements RequestBudget {
  readonly signal = new DeadlineSignal();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly timeoutMs: number,
    private readonly onExpired?: (reason: DeadlineExceededError) => void,
  ) {
    this.timer = setTimeout(expire, timeoutMs, this);
  }

  end(): void {
    clearTimeout(this.timer);
  }

  /** The deadline passed: abort, then tell. */
  expire(): void {
    const reason = new DeadlineExceededError(this.timeoutMs);
    this.signal.abort(reason);
    this.onExpired?.(reason);
  }
}

function expire(deadline: RequestDeadline): void {
  deadline.expire();
}
