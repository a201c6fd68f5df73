/** `aggregate` on a collection (see engine/pipeline.ts for the supported stages); results via a cursor. */
import {
  collectionNameOf,
  CommandDefinition,
  cursorReply,
  optionalDocument,
  optionalNumber,
} from './context';
import { badValue, unsupported } from '../engine/errors';
import { commandVariables } from '../engine/expressions';
import { runPipeline, stagesOf } from '../engine/pipeline';
import { collStatsDocument } from './coll-stats';
import { explainReply } from './explain';

export const aggregate: CommandDefinition = {
  name: 'aggregate',
  fields: [
    'pipeline',
    'cursor',
    'allowDiskUse',
    'hint',
    'explain',
    'bypassDocumentValidation',
    'let',
  ],
  run(command, context) {
    const { server, database } = context;
    if (typeof command.aggregate !== 'string') throw unsupported('database-level aggregate');
    if (command.explain === true) {
      const { explain: _explain, ...inner } = command;
      return explainReply(inner, 'queryPlanner', context);
    }
    const cursor = optionalDocument(command, 'cursor');
    if (!cursor)
      throw badValue(
        "The 'cursor' option is required, except for aggregate with the explain argument",
      );
    const name = collectionNameOf(command, 'aggregate');
    const namespace = `${database}.${name}`;
    const stages = stagesOf(command.pipeline);
    const collStats =
      stages[0]?.[0] === '$collStats'
        ? [collStatsDocument(context, name, stages.shift()![1])]
        : undefined;
    const variables = commandVariables(command.let);
    const results = runPipeline(server.store.get(database, name), stages, variables, collStats);
    const { batch, id } = server.cursors.openCursor(
      namespace,
      results,
      optionalNumber(cursor, 'batchSize'),
    );
    return cursorReply(namespace, batch, id, true);
  },
};
