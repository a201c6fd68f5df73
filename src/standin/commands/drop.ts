/** `drop`: removes a collection and its indexes; NamespaceNotFound (26) when it does not exist. */
import { collectionNameOf, CommandDefinition } from './context';
import { CommandError, ErrorCode } from '../engine/errors';

export const drop: CommandDefinition = {
  name: 'drop',
  fields: [],
  run(command, { server, database }) {
    const name = collectionNameOf(command, 'drop');
    const collection = server.store.get(database, name);
    if (!collection) throw new CommandError(ErrorCode.NamespaceNotFound, 'ns not found');
    const indexes = collection.indexes.length;
    server.store.drop(database, name);
    return { nIndexesWas: indexes, ns: `${database}.${name}`, ok: 1 };
  },
};
