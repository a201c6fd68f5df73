/** `listIndexes`: index definitions via a cursor; NamespaceNotFound (26) for a missing collection. */
import {
  collectionNameOf,
  CommandDefinition,
  cursorReply,
  optionalDocument,
  optionalNumber,
} from './context';
import { CommandError, ErrorCode } from '../engine/errors';

export const listIndexes: CommandDefinition = {
  name: 'listIndexes',
  fields: ['cursor'],
  run(command, { server, database }) {
    const name = collectionNameOf(command, 'listIndexes');
    const collection = server.store.get(database, name);
    if (!collection)
      throw new CommandError(ErrorCode.NamespaceNotFound, `ns does not exist: ${database}.${name}`);
    const namespace = `${database}.${name}`;
    const batchSize = optionalNumber(optionalDocument(command, 'cursor') ?? {}, 'batchSize');
    const { batch, id } = server.cursors.openCursor(
      namespace,
      collection.indexes.map((index) => index.describe()),
      batchSize,
    );
    return cursorReply(namespace, batch, id, true);
  },
};
