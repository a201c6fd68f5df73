/**
 * RequestStats: how long GraphQL requests over HTTP take and how they end, and the errors they
 * answer, by code; the series every GraphQL dashboard starts from (docs/operations.md, "Metrics").
 *
 * - `sequential_ids_graphql_request_duration_seconds` (histogram): from the request's arrival at
 *   `/graphql` to its answer, by `operation_type` (query, mutation, subscription, or `none` for a
 *   request refused before an operation was known), `operation_name` and `outcome` (`success`, or
 *   `error` when the answer holds a top-level error or its status is 4xx/5xx; an expected failure
 *   in a payload's `error` is a success of the request).
 * - `sequential_ids_graphql_errors_total` (counter): top-level errors answered, by `code`.
 *
 * Label cardinality is bounded whatever clients send: operation names are the client's, so the
 * first `MAX_OPERATION_LABELS` names seen get a label of their own and every later one counts as
 * `other` (an anonymous operation as `anonymous`, a batch of differently named ones as `batch`);
 * error codes come from the service's code, and are bounded the same way all the same. Durations
 * are counted in plain numbers (./counted-histogram.ts: prom-client's `observe` checks and hashes
 * the labels on every call); each error code's counter is resolved once.
 */
import { Counter, type Registry } from 'prom-client';
import { CountedHistogram } from './counted-histogram';
import { METRIC_PREFIX } from './strategy-stats';

/** Operation names (and error codes) with a label of their own; the rest count as `other`. */
export const MAX_OPERATION_LABELS = 32;
const OTHER = 'other';

/** Seconds: from a few milliseconds to the default REQUEST_TIMEOUT_MS (15 s). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** What one request's operations were and which error codes its answer held. */
export class ObservedRequest {
  operationType = 'none';
  operationName = 'anonymous';
  private operations = 0;
  readonly errorCodes: string[] = [];

  constructor(readonly startedAt: number) {}

  /** An operation of the request was answered (a batch answers several), with `errorCodes`. */
  answered(type: string | undefined, name: string | undefined | null, errorCodes: string[]) {
    this.operations += 1;
    if (this.operations === 1) {
      this.operationType = type ?? 'none';
      this.operationName = name ?? 'anonymous';
    } else if (this.operationName !== (name ?? 'anonymous')) this.operationName = 'batch';
    this.errorCodes.push(...errorCodes);
  }

  /** The HTTP layer answered an error itself (a refusal, the deadline). */
  refused(code: string): void {
    this.errorCodes.push(code);
  }
}

/** Keeps the first `max` values of a label as they are; every later one becomes `other`. */
class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  of(value: string): string {
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.max || value === OTHER) return OTHER;
    this.seen.add(value);
    return value;
  }
}

type RequestLabel = 'operation_type' | 'operation_name' | 'outcome';

export class RequestStats {
  private readonly durations: CountedHistogram<RequestLabel>;
  private readonly errors: Counter<'code'>;
  private readonly errorsOf = new Map<string, Counter.Internal>();
  private readonly names = new BoundedLabel(MAX_OPERATION_LABELS);
  private readonly codes = new BoundedLabel(MAX_OPERATION_LABELS);

  constructor(registry: Registry) {
    this.durations = new CountedHistogram({
      name: `${METRIC_PREFIX}graphql_request_duration_seconds`,
      help: 'GraphQL requests over HTTP, from arrival to answer, by operation type, operation name and outcome.',
      labelNames: ['operation_type', 'operation_name', 'outcome'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
    this.errors = new Counter({
      name: `${METRIC_PREFIX}graphql_errors_total`,
      help: 'Top-level errors answered to GraphQL requests (over HTTP), by code.',
      labelNames: ['code'],
      registers: [registry],
    });
  }

  /** A request to `/graphql` arrived now. */
  start(): ObservedRequest {
    return new ObservedRequest(performance.now());
  }

  /** The request was answered with `status`. */
  finish(request: ObservedRequest, status: number): void {
    const outcome = request.errorCodes.length > 0 || status >= 400 ? 'error' : 'success';
    const name = this.names.of(request.operationName);
    const series = this.durations.series({
      operation_type: request.operationType,
      operation_name: name,
      outcome,
    });
    series.observe((performance.now() - request.startedAt) / 1_000);
    for (const code of request.errorCodes) {
      const label = this.codes.of(code);
      let errors = this.errorsOf.get(label);
      if (errors === undefined) {
        errors = this.errors.labels({ code: label });
        this.errorsOf.set(label, errors);
      }
      errors.inc();
    }
  }
}
