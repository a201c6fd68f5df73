/**
 * StrategyStats: what creating users cost, per id strategy, since this process started; and the
 * same figures in Prometheus format for GET /metrics.
 *
 * The strategies are given to it (their names are labels here), so this component imports no
 * other: the list has its home in src/strategies, which the composition root passes in.
 *
 * Names follow Prometheus' conventions: every series starts with `METRIC_PREFIX`, counters end in
 * `_total`, durations are in seconds (`_seconds`); test/stats/metric-names.test.ts walks `/metrics`
 * and fails on a name that does not.
 *
 * Invariants: each instance owns its prom-client registry (tests and several services in one
 * process never share series; ./request-stats.ts registers on the same one); every strategy's
 * series exist from the start at zero, so a scraper sees all of them; `snapshot()` and `metrics()`
 * read the same totals (the counters take them when scraped) and the same latency sketch, so
 * `Query.strategyStats` and /metrics never disagree. Latency is one observation per `record()`
 * (one createUser call, or one createUsers batch). Label cardinality is bounded whatever callers
 * do: sequence names are chosen by clients, so only the first `MAX_SEQUENCE_LABELS` names written
 * get a `sequence` label of their own, and every later one counts under `sequence="other"`.
 * BLOCK's dropped ids (`sequential_ids_block_ids_dropped_total`) are labelled by a reason the
 * code gives (src/sequences/block-allocator.ts names two), never by a caller's input.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { LatencySketch } from './latency-sketch';

export interface CreationRecord<S extends string = string> {
  strategy: S;
  users: number;
  attempts: number;
  duplicateKeyRetries: number;
  counterRepairs: number;
  /** Transactions run again and commits sent again (TRANSACTION; 0 for the others). */
  transactionRetries: number;
  /** Of those, the ones after a write conflict with another transaction. */
  writeConflicts: number;
  commands: number;
  latencyMs: number;
}

export interface StrategySnapshot<S extends string = string> {
  strategy: S;
  usersCreated: number;
  insertAttempts: number;
  duplicateKeyRetries: number;
  counterRepairs: number;
  transactionRetries: number;
  writeConflicts: number;
  /** Commands sent for this strategy's creations per user created; null before the first user. */
  commandsPerUser: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}

/** The one prefix of every series the service exports. */
export const METRIC_PREFIX = 'sequential_ids_';

type Totals = Omit<CreationRecord, 'strategy' | 'latencyMs'>;
const TOTALLED = [
  'users',
  'attempts',
  'duplicateKeyRetries',
  'counterRepairs',
  'transactionRetries',
  'writeConflicts',
  'commands',
] as const;

const SERIES: Record<keyof Totals, { name: string; help: string }> = {
  users: { name: `${METRIC_PREFIX}users_created_total`, help: 'Users created, by id strategy.' },
  attempts: {
    name: `${METRIC_PREFIX}user_insert_attempts_total`,
    help: 'User inserts attempted, duplicate-key retries included, by id strategy.',
  },
  duplicateKeyRetries: {
    name: `${METRIC_PREFIX}user_duplicate_key_retries_total`,
    help: 'Inserts retried because the chosen _id was taken, by id strategy.',
  },
  counterRepairs: {
    name: `${METRIC_PREFIX}counter_repairs_total`,
    help: 'Counter repairs ($max to the stored max _id) after an issued id was taken, by id strategy.',
  },
  transactionRetries: {
    name: `${METRIC_PREFIX}user_transaction_retries_total`,
    help: 'Transactions run again (transient errors) and commits sent again (unknown result), by id strategy.',
  },
  writeConflicts: {
    name: `${METRIC_PREFIX}user_transaction_write_conflicts_total`,
    help: 'Transaction retries caused by a write conflict with another transaction, by id strategy.',
  },
  commands: {
    name: `${METRIC_PREFIX}user_creation_db_commands_total`,
    help: 'Database commands sent to create users, by id strategy.',
  },
};

const QUANTILES = [0.5, 0.95, 0.99] as const;

/** Sequence names with a label of their own in `sequential_ids_counter_document_writes_total`; the rest: `other`. */
export const MAX_SEQUENCE_LABELS = 16;
const OTHER_SEQUENCES = 'other';

export interface StrategyStatsOptions {
  /** Also export prom-client's default process metrics (CPU, memory, event loop). */
  processMetrics?: boolean;
}

export class StrategyStats<S extends string = string> {
  /** The service's one registry: ./request-stats.ts registers its series on it too. */
  readonly registry = new Registry();
  private readonly totals = new Map<S, Totals>();
  private readonly latencies = new Map<S, LatencySketch>();
  /**
   * Counter document writes per labelled sequence, and of every other sequence. These and `totals`
   * are plain numbers the counters read when scraped (their `collect`): prom-client's `inc`
   * checks and hashes its labels on every call, even through a child (seen in the CPU profile).
   */
  private readonly counterWrites = { bySequence: new Map<string, number>(), other: 0 };
  private readonly blockIdsDropped: Counter<'reason'>;

  /** `strategies`: the labels, in the order `snapshot()` lists them. */
  constructor(
    private readonly strategies: readonly S[],
    options: StrategyStatsOptions = {},
  ) {
    const registers = [this.registry];
    const { totals, counterWrites } = this;
    for (const field of TOTALLED) {
      new Counter({
        ...SERIES[field],
        labelNames: ['strategy'],
        registers,
        collect() {
          this.reset();
          for (const [strategy, total] of totals) this.inc({ strategy }, total[field]);
        },
      });
    }
    new Counter({
      name: `${METRIC_PREFIX}counter_document_writes_total`,
      help: 'Successful writes of counter documents (allocations, repairs, sets), by sequence.',
      labelNames: ['sequence'],
      registers,
      collect() {
        this.reset();
        for (const [sequence, writes] of counterWrites.bySequence) this.inc({ sequence }, writes);
        if (counterWrites.other > 0) this.inc({ sequence: OTHER_SEQUENCES }, counterWrites.other);
      },
    });
    this.blockIdsDropped = new Counter({
      name: `${METRIC_PREFIX}block_ids_dropped_total`,
      help:
        'Ids of BLOCK blocks this process reserved and will never hand out (holes in the stored ids), ' +
        'by reason: discarded (the block was dropped after one of its ids was found taken), ' +
        'shutdown (left unused at a clean shutdown, another process having allocated since).',
      labelNames: ['reason'],
      registers,
    });
    const latencies = this.latencies;
    new Gauge({
      name: `${METRIC_PREFIX}user_creation_duration_seconds`,
      help: 'Duration of user creation calls in seconds, by id strategy and quantile (within 1%).',
      labelNames: ['strategy', 'quantile'],
      registers,
      collect() {
        for (const [strategy, sketch] of latencies) {
          for (const q of QUANTILES) {
            const value = sketch.quantile(q);
            if (value !== null) this.set({ strategy, quantile: String(q) }, value / 1_000);
          }
        }
      },
    });
    for (const strategy of strategies) {
      this.totals.set(strategy, {
        users: 0,
        attempts: 0,
        duplicateKeyRetries: 0,
        counterRepairs: 0,
        transactionRetries: 0,
        writeConflicts: 0,
        commands: 0,
      });
      this.latencies.set(strategy, new LatencySketch());
    }
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  record(r: CreationRecord<S>): void {
    const totals = this.totals.get(r.strategy);
    const latency = this.latencies.get(r.strategy);
    if (totals === undefined || latency === undefined) {
      throw new TypeError(`Unknown id strategy ${String(r.strategy)}`);
    }
    for (const field of TOTALLED) totals[field] += r[field];
    latency.observe(r.latencyMs);
  }

  recordCounterWrite(sequence: string): void {
    const { bySequence } = this.counterWrites;
    const writes = bySequence.get(sequence);
    if (writes !== undefined) bySequence.set(sequence, writes + 1);
    // The first MAX_SEQUENCE_LABELS names get a label of their own; `other` counts the rest.
    else if (bySequence.size >= MAX_SEQUENCE_LABELS || sequence === OTHER_SEQUENCES) {
      this.counterWrites.other += 1;
    } else bySequence.set(sequence, 1);
  }

  /** `count` ids of BLOCK's blocks that this process will never hand out, and why. */
  recordBlockIdsDropped(count: number, reason: string): void {
    this.blockIdsDropped.inc({ reason }, count);
  }

  snapshot(): StrategySnapshot<S>[] {
    return this.strategies.map((strategy) => {
      const totals = this.totals.get(strategy) as Totals;
      const latency = this.latencies.get(strategy) as LatencySketch;
      return {
        strategy,
        usersCreated: totals.users,
        insertAttempts: totals.attempts,
        duplicateKeyRetries: totals.duplicateKeyRetries,
        counterRepairs: totals.counterRepairs,
        transactionRetries: totals.transactionRetries,
        writeConflicts: totals.writeConflicts,
        commandsPerUser: totals.users === 0 ? null : totals.commands / totals.users,
        p50Ms: latency.quantile(0.5),
        p95Ms: latency.quantile(0.95),
        p99Ms: latency.quantile(0.99),
      };
    });
  }

  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
