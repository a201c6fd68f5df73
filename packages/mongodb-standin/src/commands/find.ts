/**
 * `find`: filter, sort, projection, skip, limit, batchSize, singleBatch. The whole result is
 * computed at once (a snapshot); what does not fit the first batch waits behind a cursor for
 * getMore. A negative limit means a single batch, as in the legacy protocol.
 */
import {
  collectionNameOf,
  CommandDefinition,
  cursorReply,
  optionalDocument,
  optionalNumber,
} from './context';
import { commandVariables } from '../engine/expressions';
import { compileProjection } from '../engine/projection';
import { compileFilter } from '../engine/matcher';
import { assertHintUsable, runQuery } from '../engine/query';
import { unsupported } from '../engine/errors';

export const find: CommandDefinition = {
  name: 'find',
  fields: [
    'filter',
    'sort',
    'projection',
    'skip',
    'limit',
    'batchSize',
    'singleBatch',
    'hint',
    'noCursorTimeout',
    'allowPartialResults',
    'returnKey',
    'showRecordId',
    'let',
    'allowDiskUse',
  ],
  run(command, { server, database }) {
    const name = collectionNameOf(command, 'find');
    for (const option of ['returnKey', 'showRecordId'] as const) {
      if (command[option] === true) throw unsupported(`${option} in find`);
    }
    const namespace = `${database}.${name}`;
    const limit = optionalNumber(command, 'limit') ?? 0;
    const collection = server.store.get(database, name);
    assertHintUsable(collection, command.hint);
    const projection = compileProjection(optionalDocument(command, 'projection'));
    const filter = optionalDocument(command, 'filter');
    const variables = commandVariables(command.let, server.now());
    compileFilter(filter, variables); // an unknown operator is refused whatever the data
    const results = collection
      ? runQuery(collection, filter, {
          sort: optionalDocument(command, 'sort'),
          skip: optionalNumber(command, 'skip'),
          limit: Math.abs(limit),
          variables,
        }).map(projection)
      : [];
    const single = command.singleBatch === true || limit < 0;
    const { batch, id } = server.cursors.openCursor(
      namespace,
      results,
      optionalNumber(command, 'batchSize'),
      single,
    );
    return cursorReply(namespace, batch, id, true);
  },
};
