/**
 * CRUD and catalogue operations on collection, database, client and cursor entities, translated
 * from the format's argument names to the driver's (mostly the same shape), and client.close.
 */
import { AbstractCursor, Collection, Db, Document, MongoClient, RunCommandCursor } from 'mongodb';
import { Mismatch } from '../mismatch';
import { OperationTable } from './table';

const LEGACY_COUNT = (collection: Collection, filter: Document, options: Document) =>
  (collection as unknown as { count(f: Document, o: Document): Promise<number> }).count(
    filter,
    options,
  );

const RETURN_DOCUMENT: Record<string, string> = { Before: 'before', After: 'after' };

/** The format spells returnDocument 'Before'/'After'; the driver takes 'before'/'after'. */
function driverOptions(options: Document): Document {
  if (options.returnDocument === undefined) return options;
  const returnDocument = RETURN_DOCUMENT[options.returnDocument as string];
  if (!returnDocument)
    throw new Mismatch(`returnDocument ${JSON.stringify(options.returnDocument)}: Before or After`);
  return { ...options, returnDocument };
}

const collection =
  (fn: (c: Collection, args: Document) => Promise<unknown>) => (args: Document, target: unknown) =>
    fn(target as Collection, args);

const database =
  (fn: (d: Db, args: Document) => Promise<unknown>) => (args: Document, target: unknown) =>
    fn(target as Db, args);

const cursor =
  (fn: (c: AbstractCursor) => Promise<unknown>) => (_args: Document, target: unknown) =>
    fn(target as AbstractCursor);

/** runCursorCommand's cursor, with the getMore options the format puts beside the command. */
function commandCursor(d: Db, args: Document): RunCommandCursor {
  const {
    command,
    commandName: _name,
    cursorType: _type,
    batchSize,
    maxTimeMS,
    comment,
    ...o
  } = args;
  const opened = d.runCursorCommand(command, o);
  if (batchSize !== undefined) opened.setBatchSize(batchSize);
  if (maxTimeMS !== undefined) opened.setMaxTimeMS(maxTimeMS);
  if (comment !== undefined) opened.setComment(comment);
  return opened;
}

const modelsOf = (models: Document[]) =>
  models.map((model) => {
    const [name, spec] = Object.entries(model)[0];
    return { name, ...spec };
  });

export const crudOperations: OperationTable = {
  'collection.insertOne': collection((c, { document, ...o }) => c.insertOne(document, o)),
  'collection.insertMany': collection((c, { documents, ...o }) => c.insertMany(documents, o)),
  'collection.updateOne': collection((c, { filter, update, ...o }) =>
    c.updateOne(filter, update, o),
  ),
  'collection.updateMany': collection((c, { filter, update, ...o }) =>
    c.updateMany(filter, update, o),
  ),
  'collection.replaceOne': collection((c, { filter, replacement, ...o }) =>
    c.replaceOne(filter, replacement, o),
  ),
  'collection.deleteOne': collection((c, { filter, ...o }) => c.deleteOne(filter, o)),
  'collection.deleteMany': collection((c, { filter, ...o }) => c.deleteMany(filter, o)),
  'collection.find': collection((c, { filter, ...o }) => c.find(filter, o).toArray()),
  'collection.findOne': collection((c, { filter, ...o }) => c.findOne(filter, o)),
  'collection.aggregate': collection((c, { pipeline, ...o }) => c.aggregate(pipeline, o).toArray()),
  'collection.countDocuments': collection((c, { filter, ...o }) => c.countDocuments(filter, o)),
  'collection.estimatedDocumentCount': collection((c, o) => c.estimatedDocumentCount(o)),
  'collection.count': collection((c, { filter, ...o }) => LEGACY_COUNT(c, filter ?? {}, o)),
  'collection.distinct': collection((c, { fieldName, filter, ...o }) =>
    c.distinct(fieldName, filter, o),
  ),
  'collection.findOneAndUpdate': collection((c, { filter, update, ...o }) =>
    c.findOneAndUpdate(filter, update, { ...driverOptions(o), includeResultMetadata: false }),
  ),
  'collection.findOneAndReplace': collection((c, { filter, replacement, ...o }) =>
    c.findOneAndReplace(filter, replacement, {
      ...driverOptions(o),
      includeResultMetadata: false,
    }),
  ),
  'collection.findOneAndDelete': collection((c, { filter, ...o }) =>
    c.findOneAndDelete(filter, { ...o, includeResultMetadata: false }),
  ),
  'collection.bulkWrite': collection((c, { requests, ...o }) => c.bulkWrite(requests, o)),
  'collection.createIndex': collection((c, { keys, ...o }) => c.createIndex(keys, o)),
  'collection.dropIndexes': collection((c, o) => c.dropIndexes(o).then(() => undefined)),
  'collection.dropIndex': collection((c, { name, ...o }) =>
    c.dropIndex(name, o).then(() => undefined),
  ),
  'collection.listIndexes': collection((c, o) => c.listIndexes(o).toArray()),
  // Driver 7.9 has no *Names / *Objects helpers: their nearest equivalents send the same command.
  'collection.listIndexNames': collection((c, o) =>
    c
      .listIndexes(o)
      .map((index) => index.name as string)
      .toArray(),
  ),
  'collection.createSearchIndex': collection((c, { model }) => c.createSearchIndex(model)),
  'collection.createSearchIndexes': collection((c, { models }) => c.createSearchIndexes(models)),
  'collection.updateSearchIndex': collection((c, { name, definition }) =>
    c.updateSearchIndex(name, definition),
  ),
  'collection.dropSearchIndex': collection((c, { name }) => c.dropSearchIndex(name)),
  'collection.listSearchIndexes': collection((c, { name, aggregationOptions, ...o }) =>
    (name === undefined
      ? c.listSearchIndexes({ ...aggregationOptions, ...o })
      : c.listSearchIndexes(name, { ...aggregationOptions, ...o })
    ).toArray(),
  ),
  'database.aggregate': database((d, { pipeline, ...o }) => d.aggregate(pipeline, o).toArray()),
  'database.runCommand': database((d, { command, commandName: _name, ...o }) =>
    d.command(command, o),
  ),
  'database.runCursorCommand': database((d, args) => commandCursor(d, args).toArray()),
  // The format runs the command when the cursor is created; the driver's cursor is lazy.
  'database.createCommandCursor': database(async (d, args) => {
    const cursor = commandCursor(d, args);
    await cursor.hasNext();
    return cursor;
  }),
  // As createCommandCursor: the find runs when the cursor is created.
  'collection.createFindCursor': collection(async (c, { filter, ...o }) => {
    if (filter === undefined) throw new Mismatch('createFindCursor needs a filter');
    const opened = c.find(filter, o);
    await opened.hasNext();
    return opened;
  }),
  'cursor.iterateUntilDocumentOrError': cursor((c) => c.next()),
  'cursor.iterateOnce': cursor((c) => c.tryNext().then(() => undefined)),
  'cursor.close': cursor((c) => c.close().then(() => undefined)),
  'database.createCollection': database((d, { collection: name, ...o }) =>
    d.createCollection(name, o).then(() => undefined),
  ),
  'database.dropCollection': database((d, { collection: name, ...o }) =>
    d.dropCollection(name, o).then(() => undefined),
  ),
  'database.dropDatabase': database((d, o) => d.dropDatabase(o).then(() => undefined)),
  'database.listCollections': database((d, { filter, ...o }) =>
    d.listCollections(filter, o).toArray(),
  ),
  'database.listCollectionNames': database((d, { filter, ...o }) =>
    d
      .listCollections(filter, { ...o, nameOnly: true })
      .map((entry) => entry.name)
      .toArray(),
  ),
  'database.listCollectionObjects': database((d, { filter, ...o }) =>
    d.listCollections(filter, o).toArray(),
  ),
  'database.modifyCollection': database((d, { collection: name, ...modifications }) =>
    d.command({ collMod: name, ...modifications }).then(() => undefined),
  ),
  'client.dropDatabase': async ({ database: name, ...o }, target) =>
    (target as MongoClient).db(name).dropDatabase(o),
  'client.listDatabases': async (args, target) =>
    (target as MongoClient).db('admin').admin().listDatabases(args),
  'client.listDatabaseObjects': async (args, target) =>
    (await (target as MongoClient).db('admin').admin().listDatabases(args)).databases,
  'client.listDatabaseNames': async (args, target) =>
    (
      await (target as MongoClient)
        .db('admin')
        .admin()
        .listDatabases({ ...args, nameOnly: true })
    ).databases.map((entry) => entry.name),
  // Closing a client ends its topology (topologyClosedEvent); its entity stays defined.
  'client.close': async (_args, target) => (target as MongoClient).close(),
  'client.clientBulkWrite': async ({ models, ...o }, target) =>
    (target as MongoClient).bulkWrite(modelsOf(models) as never, o),
};
