/** `count` (legacy estimatedDocumentCount path and older tools): number of matches after skip/limit. */
import { collectionNameOf, CommandDefinition, optionalDocument, optionalNumber } from './context';
import { compileFilter } from '../engine/matcher';
import { assertHintUsable, runQuery } from '../engine/query';

export const count: CommandDefinition = {
  name: 'count',
  fields: ['query', 'limit', 'skip', 'hint'],
  run(command, { server, database }) {
    const collection = server.store.get(database, collectionNameOf(command, 'count'));
    const query = optionalDocument(command, 'query');
    assertHintUsable(collection, command.hint);
    if (!collection) {
      compileFilter(query); // an unknown operator is refused whatever the data
      return { n: 0, ok: 1 };
    }
    const skip = optionalNumber(command, 'skip') ?? 0;
    const limit = Math.abs(optionalNumber(command, 'limit') ?? 0);
    const n =
      !query || Object.keys(query).length === 0
        ? Math.max(0, Math.min(collection.size - skip, limit || Infinity))
        : runQuery(collection, query, { skip, limit }).length;
    return { n, ok: 1 };
  },
};
