/** `dropIndexes`: by name, by key pattern, a list of names, or '*' (all but `_id_`). */
import { collectionNameOf, CommandDefinition } from './context';
import { CommandError, ErrorCode } from '../engine/errors';
import { Document, indexKeyOf, isPlainDocument } from '../engine/values';

export const dropIndexes: CommandDefinition = {
  name: 'dropIndexes',
  aliases: ['deleteIndexes'],
  fields: ['index'],
  run(command, { server, database }) {
    const name = collectionNameOf(command, Object.keys(command)[0]);
    const collection = server.store.get(database, name);
    if (!collection)
      throw new CommandError(ErrorCode.NamespaceNotFound, `ns not found ${database}.${name}`);
    const before = collection.indexes.length;
    const target = command.index;
    let names: string[];
    if (target === '*')
      names = collection.indexes.map((index) => index.name).filter((n) => n !== '_id_');
    else if (typeof target === 'string') names = [target];
    else if (Array.isArray(target)) names = target.map(String);
    else if (isPlainDocument(target)) {
      const match = collection.indexes.find(
        (index) => indexKeyOf(index.spec.key) === indexKeyOf(target as Document),
      );
      if (!match)
        throw new CommandError(
          ErrorCode.IndexNotFound,
          `can't find index with key: ${JSON.stringify(target)}`,
        );
      names = [match.name];
    } else
      throw new CommandError(
        ErrorCode.TypeMismatch,
        'dropIndexes.index must be a string, array or document',
      );
    for (const indexName of names) {
      if (indexName === '_id_')
        throw new CommandError(ErrorCode.InvalidOptions, 'cannot drop _id index');
      if (!collection.dropIndex(indexName))
        throw new CommandError(ErrorCode.IndexNotFound, `index not found with name [${indexName}]`);
    }
    return { nIndexesWas: before, ok: 1 };
  },
};
