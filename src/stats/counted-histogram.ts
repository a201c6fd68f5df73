/**
 * CountedHistogram: a Prometheus histogram whose series are plain numbers, found by one map lookup
 * per label (no key is built); prom-client's registry renders it with the service's other series.
 *
 * Why not prom-client's `Histogram`: its `observe`, even through a child from `labels()`, checks
 * and hashes the label set on every call, then converts the bucket's bound to a string key twice;
 * on the request path that was the service's single largest metrics cost in a CPU profile
 * (`npm run bench:profile`), and a loop of a million observations costs about sixty times what
 * counting here costs. prom-client's registry, text format and content types stay in use: this class
 * gives the registry the same metric object prom-client's own histogram gives (`get()`), so a
 * scrape sees the same families, samples and labels (test/stats/counted-histogram.test.ts holds it
 * against prom-client's `Histogram`).
 *
 * Invariants: bounds are sorted and finite (`+Inf` is implicit, as in Prometheus); an observation
 * counts in the first bucket whose bound it does not exceed, and in `_sum` and `_count`; a value
 * that is not finite is refused (a `TypeError`, as prom-client does). Label cardinality is the
 * caller's to bound: every `series()` call with new values adds a series.
 */
import type { Metric, Registry } from 'prom-client';

/** One sample as prom-client's registry reads it from a metric's `get()`. */
export interface HistogramSample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/** One label set's counts; `observe` is all the hot path pays. */
export class HistogramSeries<L extends string> {
  /** Per bucket (non-cumulative), the last one for values above every bound (`+Inf`). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<L, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]) bucket += 1;
    this.counts[bucket] += 1;
    this.sum += value;
    this.count += 1;
  }
}

type SeriesTree<L extends string> = Map<string, SeriesTree<L> | HistogramSeries<L>>;

export interface CountedHistogramConfiguration<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  buckets: readonly number[];
  registers: Registry[];
}

export class CountedHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly labelNames: readonly L[];
  private readonly bounds: readonly number[];
  /** The series by their label values, one level per label name. */
  private bySeries: SeriesTree<L> = new Map();
  /** Every series, in the order they were made (the order a scrape lists them). */
  private all: HistogramSeries<L>[] = [];

  constructor(config: CountedHistogramConfiguration<L>) {
    const sorted = config.buckets.every(
      (b, i) => Number.isFinite(b) && (i === 0 || b > config.buckets[i - 1]),
    );
    if (!sorted) throw new TypeError(`${config.name}: buckets must be finite and increasing`);
    if (config.labelNames.some((label) => label === 'le')) {
      throw new TypeError(`${config.name}: le is a reserved label`);
    }
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.bounds = [...config.buckets];
    // The registry needs only the metric object's shape (name, type, help, get, reset), which this
    // class gives; its TypeScript type lists prom-client's own classes.
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series of `labels` (every label name given), made at zero on first use. */
  series(labels: Readonly<Record<L, string>>): HistogramSeries<L> {
    // One map per label, in `labelNames` order: building a key string per call cost eight times
    // the lookups (a million calls in a loop).
    let level: SeriesTree<L> = this.bySeries;
    const last = this.labelNames.length - 1;
    for (let i = 0; i < last; i += 1) {
      const value = labels[this.labelNames[i]];
      let next = level.get(value) as SeriesTree<L> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const value = last < 0 ? '' : labels[this.labelNames[last]];
    let series = level.get(value) as HistogramSeries<L> | undefined;
    if (series === undefined) {
      series = new HistogramSeries({ ...labels }, this.bounds);
      level.set(value, series);
      this.all.push(series);
    }
    return series;
  }

  /** Every series back to nothing (the registry's `resetMetrics()`). */
  reset(): void {
    this.bySeries = new Map();
    this.all = [];
  }

  /** The samples of every series, as prom-client's registry reads a metric. */
  async get() {
    const values: HistogramSample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const series of this.all) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i += 1) {
        cumulative += series.counts[i];
        values.push({
          metricName: bucket,
          labels: { ...series.labels, le: this.bounds[i] },
          value: cumulative,
        });
      }
      values.push({
        metricName: bucket,
        labels: { ...series.labels, le: '+Inf' },
        value: series.count,
      });
      values.push({
        metricName: `${this.name}_sum`,
        labels: { ...series.labels },
        value: series.sum,
      });
      values.push({
        metricName: `${this.name}_count`,
        labels: { ...series.labels },
        value: series.count,
      });
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }
}
