/**
 * Connecting to MongoDB and everything that knows the driver: client options, the embedded
 * database, duplicate-key recognition, transient-error classification, counting commands.
 */
export { connectDatabase, pingDatabase, clientOptions, writeConcernOf } from './connect.js';
export type { DatabaseConfig } from './connect.js';
export { startEmbeddedDatabase } from './embedded.js';
export type { EmbeddedDatabase } from './embedded.js';
export { isDuplicateKeyError, duplicateKeyFields, DUPLICATE_KEY } from './duplicate-key.js';
export { isTransientDatabaseError, TRANSIENT_SERVER_CODES } from './transient.js';
export { beforeWrite, type WriteOptions } from './write-options.js';
export { isNamespaceNotFound, NAMESPACE_NOT_FOUND } from './namespace.js';
export { boundedCollection, type BoundedCollection } from './command-options.js';
export { countCommand, countTransactionRetry, type CommandTally } from './command-tally.js';
export {
  isTransactionsUnsupported,
  runInTransaction,
  TransactionRetriesExhausted,
  type TransactionOptions,
  type TransactionWork,
} from './transaction.js';
