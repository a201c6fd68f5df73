/**
 * The stats component: per-strategy creation costs and latency, and their Prometheus export.
 */
export {
  type CreationRecord,
  MAX_SEQUENCE_LABELS,
  StrategyStats,
  type StrategySnapshot,
  type StrategyStatsOptions,
} from './strategy-stats';
