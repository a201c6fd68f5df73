/**
 * `createIndexes`: unique, compound, sparse and partial (`$type`/`$exists`/...) indexes. An
 * identical existing index is a no-op; building a unique index over duplicates fails with E11000.
 */
import { collectionNameOf, CommandDefinition } from './context';
import { badValue, CommandError, ErrorCode } from '../engine/errors';
import { parseIndexSpec } from '../engine/indexes';

export const createIndexes: CommandDefinition = {
  name: 'createIndexes',
  fields: ['indexes', 'commitQuorum'],
  run(command, { server, database }) {
    if (!Array.isArray(command.indexes) || command.indexes.length === 0) {
      throw badValue('Must specify at least one index to create');
    }
    const specs = command.indexes.map(parseIndexSpec);
    const { collection, created } = server.store.obtain(
      database,
      collectionNameOf(command, 'createIndexes'),
    );
    const before = collection.indexes.length;
    try {
      for (const spec of specs) collection.addIndex(spec);
    } catch (error) {
      if (error instanceof CommandError && error.code === ErrorCode.DuplicateKey) {
        throw new CommandError(
          ErrorCode.DuplicateKey,
          `Index build failed: ${error.message}`,
          error.extra,
        );
      }
      throw error;
    }
    const reply: Record<string, unknown> = {
      numIndexesBefore: before,
      numIndexesAfter: collection.indexes.length,
      createdCollectionAutomatically: created,
    };
    if (before === collection.indexes.length) reply.note = 'all indexes already exist';
    return { ...reply, ok: 1 };
  },
};
