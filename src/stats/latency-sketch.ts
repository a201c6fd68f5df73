/**
 * A streaming quantile sketch for latencies (log-spaced buckets, as in DDSketch).
 *
 * Why not read prom-client's Summary: its reads are asynchronous, and `StrategyStats.snapshot()`
 * is synchronous; keeping one sketch and exporting it to /metrics also makes `strategyStats` and
 * `/metrics` show the very same numbers.
 * Invariants: memory grows with the logarithm of the value range, not the number of observations
 * (about 230 buckets per factor of 10 at 1% accuracy), so it can run for the whole life of a
 * process; every quantile it reports is within 1% (relative) of an observed value at that rank.
 */
const RELATIVE_ACCURACY = 0.01;
const GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY);
const LOG_GAMMA = Math.log(GAMMA);
/** Values at or below this (ms) count as this: a microsecond is below anything we can time. */
const SMALLEST = 1e-3;

export class LatencySketch {
  private readonly buckets = new Map<number, number>();
  private observed = 0;
  private total = 0;

  get count(): number {
    return this.observed;
  }

  get sum(): number {
    return this.total;
  }

  observe(value: number): void {
    const index = Math.ceil(Math.log(Math.max(value, SMALLEST)) / LOG_GAMMA);
    this.buckets.set(index, (this.buckets.get(index) ?? 0) + 1);
    this.observed += 1;
    this.total += value;
  }

  /** The value at quantile `q` (0..1), or null before the first observation. */
  quantile(q: number): number | null {
    if (this.observed === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.observed));
    let seen = 0;
    const indexes = [...this.buckets.keys()].sort((a, b) => a - b);
    for (const index of indexes) {
      seen += this.buckets.get(index) ?? 0;
      if (seen >= rank) return (2 * GAMMA ** index) / (GAMMA + 1);
    }
    return null;
  }
}
