/**
 * One budget of one kind of caller (`points` per window of `seconds`), shared by every instance
 * through rate-limiter-flexible's MongoDB limiter, and drawn on in leases so that most charges cost
 * no database round trip.
 *
 * How: the first charge of a caller in a window takes a lease of units from the database at once
 * (one `consume` of a twentieth of the budget, `BUDGET_LEASES.fraction`, or of the charge when that
 * is larger) and spends it in this process; the next charges spend what is left of it, and only
 * when it runs out is another taken. The database counts a lease whole as it is taken, so all
 * instances together never spend more than the budget in one window; what one instance leased and
 * did not spend is lost to the others until the window ends (at most a lease per instance). When
 * the database answers that the budget is spent, the units of that lease still inside it are
 * granted, the rest of the window is refused in this process without asking again, and the
 * refusal says when the window ends (`retryAfter`).
 *
 * Invariants: a charge is all or nothing (a request of 1,000 users is refused whole when 999 are
 * left, and the units stay for smaller requests); concurrent charges of one caller share one
 * lease request (at most one in flight per caller and budget in a process); a lease belongs to the
 * window it was taken in and is dropped when that window ends. When the database cannot be reached
 * (every command is bounded: ./store.ts, and the client's timeouts), the limiter's insurance
 * decides, an in-process limiter with the same budget per instance (rate-limiter-flexible's
 * `insuranceLimiter`): bounded, though N instances then allow N budgets. A slow database is waited
 * for, not bypassed: a fallback on slowness would let every instance spend a budget of its own
 * exactly when the machine is busiest. Leases are kept for `BUDGET_LEASES.callersKept` callers.
 */
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterMongo, RateLimiterRes } from 'rate-limiter-flexible';
import { BUDGET_LEASES, type BudgetName } from '../limits';
import { RateLimitedError, secondsUntil } from './errors';
import { BUDGETS_COLLECTION } from './store';

/** What a process holds of one caller's budget in the current window. */
interface Lease {
  /** Units taken from the database and not yet spent here. */
  left: number;
  /** When the window ends (epoch ms); the lease is void after it. */
  until: number;
  /** The database said the window's budget is spent: no further lease until `until`. */
  spent: boolean;
}

/** What a caller has of one budget now, for `viewer { limits { budgets } }`. */
export interface BudgetStanding {
  budget: BudgetName;
  /** Units per window; null when unlimited. */
  limit: number | null;
  /** Seconds per window; null when unlimited. */
  windowSeconds: number | null;
  /** Units left in this window (across instances; others' unspent leases count as spent). */
  remaining: number | null;
  /** Seconds until the window ends; null when none is open. */
  resetsInSeconds: number | null;
}

export class LeasedBudget {
  private readonly limiter: RateLimiterMongo;
  private readonly leases = new LRUCache<string, Lease>({ max: BUDGET_LEASES.callersKept });
  private readonly taking = new Map<string, Promise<void>>();
  private readonly leaseSize: number;

  constructor(
    readonly budget: BudgetName,
    /** The kind of caller it counts (`anonymous`, `client`, `admin`): the keys' prefix. */
    kind: string,
    private readonly window: { points: number; seconds: number },
    storeClient: unknown,
    private readonly onRefusal: (budget: BudgetName) => void,
  ) {
    const keyPrefix = `${budget}:${kind}`;
    const options = { keyPrefix, points: window.points, duration: window.seconds };
    const insuranceLimiter = new RateLimiterMemory(options);
    this.limiter = new RateLimiterMongo({
      ...options,
      storeClient,
      tableName: BUDGETS_COLLECTION,
      disableIndexesCreation: true,
      insuranceLimiter,
    });
    this.leaseSize = Math.max(1, Math.ceil(window.points / BUDGET_LEASES.fraction));
  }

  /**
   * Spends `units` of `caller`'s budget, or throws RATE_LIMITED and spends nothing. Synchronous
   * while the caller's lease covers it (the common case), else a promise.
   */
  charge(caller: string, units: number): void | Promise<void> {
    if (units <= 0) return;
    const now = Date.now();
    let lease = this.leases.get(caller);
    if (lease !== undefined && now >= lease.until) {
      this.leases.delete(caller);
      lease = undefined;
    }
    if (lease !== undefined && lease.left >= units) {
      lease.left -= units;
      return;
    }
    if (this.window.points < units || lease?.spent === true) {
      throw this.refusal(lease === undefined ? this.window.seconds * 1000 : lease.until - now);
    }
    const inFlight = this.taking.get(caller);
    if (inFlight !== undefined) return inFlight.then(() => this.charge(caller, units));
    const taken = this.take(caller, units - (lease?.left ?? 0)).finally(() =>
      this.taking.delete(caller),
    );
    this.taking.set(caller, taken);
    return taken.then(() => this.charge(caller, units));
  }

  /** What `caller` has left of this budget in the current window. */
  async standing(caller: string): Promise<BudgetStanding> {
    const stored = await this.limiter.get(caller);
    const lease = this.leases.get(caller);
    const now = Date.now();
    const held = lease !== undefined && now < lease.until ? lease.left : 0;
    const consumed = stored?.consumedPoints ?? 0;
    return {
      budget: this.budget,
      limit: this.window.points,
      windowSeconds: this.window.seconds,
      remaining: Math.max(this.window.points - consumed, 0) + held,
      resetsInSeconds:
        stored === null || stored.msBeforeNext < 0 ? null : secondsUntil(stored.msBeforeNext),
    };
  }

  /** Takes a lease of at least `needed` units from the database (see the header). */
  private async take(caller: string, needed: number): Promise<void> {
    const ask = Math.max(needed, this.leaseSize);
    let answer: RateLimiterRes;
    let granted: number;
    try {
      answer = await this.limiter.consume(caller, ask);
      granted = ask;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      answer = err;
      // The units of this lease that were still inside the budget when it was counted.
      granted = Math.min(Math.max(this.window.points - (answer.consumedPoints - ask), 0), ask);
    }
    const until = Date.now() + Math.max(answer.msBeforeNext, 0);
    const lease = this.leases.get(caller);
    const sameWindow = lease !== undefined && Date.now() < lease.until;
    this.leases.set(caller, {
      left: (sameWindow ? lease.left : 0) + granted,
      until,
      spent: answer.consumedPoints >= this.window.points,
    });
  }

  private refusal(msLeft: number): RateLimitedError {
    this.onRefusal(this.budget);
    return new RateLimitedError(this.budget, secondsUntil(msLeft), this.window);
  }
}
