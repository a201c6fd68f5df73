/**
 * How many users of `createUsers` batches one process materialises at once: a weighted semaphore
 * (async-mutex) of `capacity` users, each batch weighing its number of inputs.
 *
 * Why: a batch's memory (parsed inputs, documents, the insert's BSON, the results) lives while it
 * is created, so 64 concurrent batches of 1,000 would hold 64,000 users at once and the process's
 * peak memory would grow with concurrency. With the gate, batches beyond the capacity wait their
 * turn (first come, first served); the CPU, not the number in flight, bounds throughput anyway.
 *
 * Invariants: a batch waits at most until its request's deadline (`options.signal`): it then
 * throws the signal's reason (`DeadlineExceededError`, retryable) without having written
 * anything, and the turn it would have had is released as soon as it comes. A batch larger than
 * the capacity weighs the whole capacity (it runs alone). Every admitted batch releases its
 * weight when it settles, failed or not.
 */
import { Semaphore } from 'async-mutex';
import type { WriteOptions } from '../database/index';

export class BatchAdmission {
  private readonly semaphore: Semaphore;

  constructor(private readonly capacity: number) {
    this.semaphore = new Semaphore(capacity);
  }

  /** Runs `create` once `users` users fit in the capacity, or throws at the deadline. */
  async run<T>(users: number, options: WriteOptions | undefined, create: () => Promise<T>) {
    const signal = options?.signal;
    signal?.throwIfAborted();
    const turn = this.semaphore.acquire(Math.min(Math.max(users, 1), this.capacity));
    let release: () => void;
    if (signal) {
      let onAbort = (): void => undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        [, release] = await Promise.race([turn, aborted]);
      } catch (error) {
        void turn.then(([, late]) => late());
        throw error;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    } else {
      [, release] = await turn;
    }
    try {
      return await create();
    } finally {
      release();
    }
  }
}
