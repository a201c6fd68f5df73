/**
 * The settings the composition root gives the domain components, from the configuration's own
 * defaults (src/config.ts is their one home), for tests that build components directly.
 */
import { loadConfig } from '../../src/config';
import { writeConcernOf } from '../../src/database';

const config = loadConfig({ NODE_ENV: 'test' });

/** What `new Sequences(db, ...)` gets in the service. */
export const sequencesOptions = {
  writeConcern: writeConcernOf(config),
  maxTimeMS: config.DB_TIMEOUT_MS,
};

/** What `new Users({...})` gets in the service, besides its components. */
export const usersSettings = {
  ...sequencesOptions,
  blockSize: config.ID_BLOCK_SIZE,
  optimisticMaxAttempts: config.OPTIMISTIC_MAX_ATTEMPTS,
};
