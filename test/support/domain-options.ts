/**
 * The settings the composition root gives the domain components, from the defaults where each is
 * declared (src/config.ts, each strategy's folder), for tests that build components directly.
 */
import { loadConfig } from '../../src/config';
import { writeConcernOf } from '../../src/database';
import type { StrategySettings } from '../../src/strategies';
import { readEnvironment } from './environment';

const config = loadConfig({ NODE_ENV: 'test' });

/** What `new Sequences(db, ...)` gets in the service. */
export const sequencesOptions = {
  writeConcern: writeConcernOf(config),
  maxTimeMS: config.DB_TIMEOUT_MS,
};

/**
 * Every strategy's settings as the service reads them from `env` (its variables, e.g.
 * `{ OPTIMISTIC_MAX_ATTEMPTS: '1000' }`), except that BLOCK's blocks keep a fixed size
 * (ID_BLOCK_SIZE_MAX = ID_BLOCK_SIZE) unless `env` sets ID_BLOCK_SIZE_MAX: a block that grows with
 * the creation rate would make a test's counts of commands depend on the machine's speed.
 */
export function strategySettings(env: Record<string, string> = {}): StrategySettings {
  const { settings } = readEnvironment({ NODE_ENV: 'test', ...env });
  if (env.ID_BLOCK_SIZE_MAX !== undefined) return settings;
  return {
    ...settings,
    BLOCK: { ...settings.BLOCK, ID_BLOCK_SIZE_MAX: settings.BLOCK.ID_BLOCK_SIZE },
  };
}

/** What `new Users({...})` gets in the service, besides its components. */
export const usersSettings = {
  ...sequencesOptions,
  strategySettings: strategySettings(),
};

/**
 * The environment of a test whose claim is about ids, not latency: on a busy machine hundreds of
 * creations in flight can wait longer than the production bounds for their turn at the database,
 * which is no wrong id. So commands may take 60 s, requests 150 s, and the optimistic loop, which
 * contends with itself for max + 1, retries up to 1,000 times.
 */
export const PATIENT_ENV = {
  OPTIMISTIC_MAX_ATTEMPTS: '1000',
  REQUEST_TIMEOUT_MS: '150000',
  DB_TIMEOUT_MS: '60000',
};

/** `PATIENT_ENV` as `new Users({...})` (and `UsersTestBed.fresh`) takes it. */
export const patientUsersSettings = {
  maxTimeMS: loadConfig({ NODE_ENV: 'test', ...PATIENT_ENV }).DB_TIMEOUT_MS,
  strategySettings: strategySettings(PATIENT_ENV),
};
