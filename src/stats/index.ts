/**
 * The stats component: per-strategy creation costs and latency, and their Prometheus export.
 */
export {
  type CreationRecord,
  MAX_SEQUENCE_LABELS,
  METRIC_PREFIX,
  StrategyStats,
  type StrategySnapshot,
  type StrategyStatsOptions,
} from './strategy-stats';
export { MAX_OPERATION_LABELS, ObservedRequest, RequestStats } from './request-stats';
