/**
 * `UserIdTurns`: the process's schedule of id rounds. Every strategy's rounds on the `userid`
 * counter and the `users` collection pass through it (src/users/fresh-ids.ts asks for a turn): a
 * transactional round (TRANSACTION, taking its ids in the insert's transaction) and a counter-fed
 * round retrying after a collision (repair, take, insert: `retriesAlone`) run alone; every other
 * round (COUNTER's, BLOCK's and OPTIMISTIC_LOOP's take, insert, give back) runs beside the others.
 *
 * Why: a TRANSACTION round holds the `userid` counter's document and its new `_id`s locked at the
 * server until it commits, and a plain write that meets those locks (COUNTER's or BLOCK's `$inc`,
 * OPTIMISTIC_LOOP's insert of the same max + 1, a drift repair) waits there, as on mongod, holding
 * one of the driver's pooled connections. Enough of them fill the pool, and the commit that would
 * release them waits for a connection: a deadlock that only their maxTimeMS ends. With turns, such
 * writes wait here, holding nothing, and a transaction never meets a write of its own process, so
 * it conflicts (WriteConflict) only with other processes. Rounds of other processes still wait at
 * the server, on their own connections, for as long as one transaction lasts.
 *
 * Fair: turns are granted in request order (a round that cannot start waits behind every round
 * requested before it, so a waiting transactional round holds back the shared rounds that come
 * after it), so neither side starves.
 *
 * Written here rather than with async-mutex's `Semaphore` (its `acquire` with a weight): a round
 * that may start at once (nearly every COUNTER and BLOCK round) starts in the caller's own turn
 * here, where `acquire` costs it a promise, a turn of microtasks, a releaser closure and a scan of
 * the whole capacity at every release.
 *
 * Imports only src/telemetry (to show a wait in the request's trace): the strategies' contract
 * (./strategy.ts) names it, and the users component creates one per process.
 */
import { annotateActiveSpan } from '../telemetry/index';

export class UserIdTurns {
  /**
   * Shared rounds at once. More would gain nothing: the driver sends at most `maxPoolSize`
   * (100 by default) commands at once.
   */
  static readonly SHARED_AT_ONCE = 128;
  /** The weight of the rounds running: 1 per shared round, SHARED_AT_ONCE for a round alone. */
  private running = 0;
  /** The rounds that could not start when requested, in request order. */
  private readonly waiting: Array<{ weight: number; start: () => void }> = [];

  /** Runs a round that writes outside any transaction; such rounds run together. */
  shared<T>(round: () => Promise<T>): Promise<T> {
    return this.inTurn(round, 1);
  }

  /** Runs a round alone in this process (a transaction, a counter-fed retry). */
  alone<T>(round: () => Promise<T>): Promise<T> {
    return this.inTurn(round, UserIdTurns.SHARED_AT_ONCE);
  }

  private inTurn<T>(round: () => Promise<T>, weight: number): Promise<T> {
    if (this.waiting.length === 0 && this.running + weight <= UserIdTurns.SHARED_AT_ONCE) {
      this.running += weight;
      return this.run(round, weight);
    }
    const queuedAt = performance.now();
    return new Promise<void>((start) => this.waiting.push({ weight, start })).then(() => {
      // The request's trace shows the wait (src/telemetry); the instrumentations cannot see it.
      annotateActiveSpan({ 'sequential_ids.turn_waited_ms': performance.now() - queuedAt });
      return this.run(round, weight);
    });
  }

  /** Runs a round whose weight is already counted in `running`; ends its turn whatever happens. */
  private async run<T>(round: () => Promise<T>, weight: number): Promise<T> {
    try {
      return await round();
    } finally {
      this.running -= weight;
      this.startWaiting();
    }
  }

  /** Starts the waiting rounds, first come first, while the first of them fits. */
  private startWaiting(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0];
      if (this.running + next.weight > UserIdTurns.SHARED_AT_ONCE) return;
      this.waiting.shift();
      this.running += next.weight;
      next.start();
    }
  }
}
