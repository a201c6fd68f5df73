/** Connecting to MongoDB: client options, the embedded database, duplicate-key recognition. */
export {
  connectDatabase,
  pingDatabase,
  clientOptions,
  writeConcernOf,
  SERVER_SELECTION_TIMEOUT_MS,
} from './connect.js';
export type { DatabaseConfig } from './connect.js';
export { startEmbeddedDatabase, EMBEDDED_DATA_DIR } from './embedded.js';
export type { EmbeddedDatabase } from './embedded.js';
export { isDuplicateKeyError, duplicateKeyFields, DUPLICATE_KEY } from './duplicate-key.js';
