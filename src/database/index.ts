/** Connecting to MongoDB: client options, the embedded database, duplicate-key recognition. */
export { connectDatabase, pingDatabase, clientOptions, writeConcernOf } from './connect.js';
export type { DatabaseConfig } from './connect.js';
export { startEmbeddedDatabase } from './embedded.js';
export type { EmbeddedDatabase } from './embedded.js';
export { isDuplicateKeyError, duplicateKeyFields, DUPLICATE_KEY } from './duplicate-key.js';
