/**
 * The stats component: per-strategy creation costs and latency, and their Prometheus export.
 */
export {
  type CreationRecord,
  ID_STRATEGIES,
  MAX_SEQUENCE_LABELS,
  type IdStrategy,
  StrategyStats,
  type StrategySnapshot,
  type StrategyStatsOptions,
} from './strategy-stats.js';
