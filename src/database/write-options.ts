/**
 * What a caller may pass to every domain method that writes: the signal of its deadline.
 *
 * Why: the API answers 503 when a request's deadline passes, and a request answered that way must
 * not go on to store anything afterwards (a retry without an idempotency key would then create a
 * second user). So every write is preceded by `beforeWrite`, as is every retry round: once the
 * signal has fired, the next write never starts and the signal's reason is thrown. A write already
 * sent is not recalled (the driver cannot), but it is the last one.
 */
export interface WriteOptions {
  /** Fires at the caller's deadline; no database write starts after it. */
  signal?: AbortSignal;
}

/** Throws the signal's reason when it has fired; call it right before each database write. */
export function beforeWrite(options: WriteOptions | undefined): void {
  options?.signal?.throwIfAborted();
}
