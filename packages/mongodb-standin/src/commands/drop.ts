/**
 * `drop`: removes a collection and its indexes. Dropping a collection that does not exist is a
 * no-op answering `{ ok: 1 }`, as in mongod 7.0, the version the stand-in reports (SERVER-43894;
 * before 7.0 mongod answered NamespaceNotFound, 26).
 */
import { collectionNameOf, CommandDefinition } from './context';

export const drop: CommandDefinition = {
  name: 'drop',
  fields: [],
  run(command, { server, database }) {
    const name = collectionNameOf(command, 'drop');
    const collection = server.store.get(database, name);
    if (!collection) return { ok: 1 };
    const indexes = collection.indexes.length;
    server.store.drop(database, name);
    return { nIndexesWas: indexes, ns: `${database}.${name}`, ok: 1 };
  },
};
