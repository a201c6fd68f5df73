/** `dropIndexes`: by name, by key pattern, a list of names, or '*' (all but `_id_`). */
import { collectionNameOf, CommandDefinition } from './context';
import { CommandError } from '../engine/errors';
import { Document, indexKeyOf, isPlainDocument } from '../engine/values';

export const dropIndexes: CommandDefinition = {
  name: 'dropIndexes',
  aliases: ['deleteIndexes'],
  fields: ['index'],
  run(command, { server, database }) {
    const name = collectionNameOf(command, Object.keys(command)[0]);
    const collection = server.store.get(database, name);
    if (!collection) throw new CommandError(26, `ns not found ${database}.${name}`);
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
        throw new CommandError(27, `can't find index with key: ${JSON.stringify(target)}`);
      names = [match.name];
    } else throw new CommandError(14, 'dropIndexes.index must be a string, array or document');
    for (const indexName of names) {
      if (indexName === '_id_') throw new CommandError(72, 'cannot drop _id index');
      if (!collection.dropIndex(indexName))
        throw new CommandError(27, `index not found with name [${indexName}]`);
    }
    return { nIndexesWas: before, ok: 1 };
  },
};
