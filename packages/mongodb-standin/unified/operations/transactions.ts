/**
 * Transaction operations and the test runner's transaction assertions: startTransaction,
 * commitTransaction, abortTransaction, withTransaction (its callback's operations run through
 * the runner with their expectations, errors rethrown so the driver sees them), and
 * assertSessionTransactionState, assertSessionPinned/Unpinned, assertCollectionExists/NotExists,
 * assertIndexExists/NotExists (read through a client of the runner's own, as the format asks).
 */
import { ClientSession, Document, MongoClient } from 'mongodb';
import { Mismatch } from '../mismatch';
import { OperationContext, OperationTable } from './table';

/** The driver's transaction states by the format's names. */
const STATES: Record<string, string[]> = {
  none: ['NO_TRANSACTION'],
  starting: ['STARTING_TRANSACTION'],
  in_progress: ['TRANSACTION_IN_PROGRESS'],
  committed: ['TRANSACTION_COMMITTED', 'TRANSACTION_COMMITTED_EMPTY'],
  aborted: ['TRANSACTION_ABORTED'],
};

const session = (target: unknown) => target as ClientSession;

async function withRunnerClient<T>(uri: string, read: (client: MongoClient) => Promise<T>) {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    return await read(client);
  } finally {
    await client.close();
  }
}

function collectionExists(expected: boolean) {
  return async (args: Document, _t: unknown, context: OperationContext) => {
    const names = await withRunnerClient(context.uri, (client) =>
      client
        .db(args.databaseName)
        .listCollections({ name: args.collectionName }, { nameOnly: true })
        .toArray(),
    );
    if (names.length > 0 !== expected)
      throw new Mismatch(
        `collection ${args.databaseName}.${args.collectionName} ${expected ? 'does not exist' : 'exists'}`,
      );
    return undefined;
  };
}

function indexExists(expected: boolean) {
  return async (args: Document, _t: unknown, context: OperationContext) => {
    const indexes = await withRunnerClient(context.uri, (client) =>
      client
        .db(args.databaseName)
        .collection(args.collectionName)
        .listIndexes()
        .toArray()
        .catch(() => [] as Document[]),
    );
    if (indexes.some((index) => index.name === args.indexName) !== expected)
      throw new Mismatch(
        `index ${args.indexName} of ${args.databaseName}.${args.collectionName} ${expected ? 'does not exist' : 'exists'}`,
      );
    return undefined;
  };
}

function pinned(expected: boolean) {
  return async (args: Document) => {
    if (session(args.session).isPinned !== expected)
      throw new Mismatch(`the session is ${expected ? 'not ' : ''}pinned`);
    return undefined;
  };
}

export const transactionOperations: OperationTable = {
  'session.startTransaction': async (args, target) => session(target).startTransaction(args),
  'session.commitTransaction': async (_args, target) => session(target).commitTransaction(),
  'session.abortTransaction': async (_args, target) => session(target).abortTransaction(),
  'session.withTransaction': async ({ callback, ...options }, target, context) => {
    await session(target).withTransaction(() => context.runNested(callback), options);
    return undefined;
  },
  'testRunner.assertSessionTransactionState': async (args) => {
    const state = (session(args.session) as unknown as { transaction: { state: string } })
      .transaction.state;
    if (!(STATES[args.state] ?? []).includes(state))
      throw new Mismatch(`the session's transaction is ${state}, expected ${args.state}`);
    return undefined;
  },
  'testRunner.assertSessionPinned': pinned(true),
  'testRunner.assertSessionUnpinned': pinned(false),
  'testRunner.assertCollectionExists': collectionExists(true),
  'testRunner.assertCollectionNotExists': collectionExists(false),
  'testRunner.assertIndexExists': indexExists(true),
  'testRunner.assertIndexNotExists': indexExists(false),
};
