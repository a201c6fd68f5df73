/** `listCollections`: collection entries via a cursor, filterable (e.g. `{ name }`), nameOnly honoured. */
import { CommandDefinition, cursorReply, optionalDocument, optionalNumber } from './context';
import { ID_INDEX } from '../engine/collection';
import { compileFilter } from '../engine/matcher';

export const listCollections: CommandDefinition = {
  name: 'listCollections',
  fields: ['filter', 'nameOnly', 'authorizedCollections', 'cursor'],
  run(command, { server, database }) {
    const matches = compileFilter(optionalDocument(command, 'filter'));
    const entries = server.store
      .collections(database)
      .map((collection) => ({
        name: collection.name,
        type: 'collection',
        options: {},
        info: { readOnly: false },
        idIndex: { v: 2, key: ID_INDEX.key, name: ID_INDEX.name },
      }))
      .filter(matches)
      .map((entry) => (command.nameOnly === true ? { name: entry.name, type: entry.type } : entry));
    const namespace = `${database}.$cmd.listCollections`;
    const batchSize = optionalNumber(optionalDocument(command, 'cursor') ?? {}, 'batchSize');
    const { batch, id } = server.cursors.openCursor(namespace, entries, batchSize);
    return cursorReply(namespace, batch, id, true);
  },
};
