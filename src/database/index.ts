/**
 * Connecting to MongoDB and everything that knows the driver: client options, the embedded
 * database, duplicate-key recognition, transient-error classification, counting commands, bounded
 * collections, writes under a deadline, transactions, and change feeds.
 */
export {
  connectDatabase,
  pingDatabase,
  clientOptions,
  writeConcernOf,
  SERVICE_APP_NAME,
  BUDGETS_APP_NAME,
} from './connect';
export type { DatabaseConfig } from './connect';
export { startEmbeddedDatabase } from './embedded';
export type { EmbeddedDatabase } from './embedded';
export { isDuplicateKeyError, duplicateKeyFields, DUPLICATE_KEY } from './duplicate-key';
export { isTransientDatabaseError, TRANSIENT_SERVER_CODES } from './transient';
export { beforeWrite, type WriteOptions } from './write-options';
export { isNamespaceNotFound, NAMESPACE_NOT_FOUND } from './namespace';
export { boundedCollection, type BoundedCollection } from './command-options';
export { countCommand, countTransactionRetry, type CommandTally } from './command-tally';
export {
  isTransactionsUnsupported,
  runInTransaction,
  TransactionRetriesExhausted,
  type TransactionOptions,
  type TransactionWork,
  afterCommit,
} from './transaction';
export { openChangeFeed, type ChangeFeed, type FeedEvent } from './change-feed';
