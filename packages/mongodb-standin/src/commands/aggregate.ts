/**
 * `aggregate` on a collection (see engine/pipeline.ts for the supported stages), `$collStats`,
 * `$currentOp` on `{ aggregate: 1 }`, and change streams (`$changeStream` first, on a
 * collection, a database or the cluster: change-stream.ts); results via a cursor. Other
 * database-level pipelines are refused.
 */
import type { CollectionView } from '../engine/views';
import {
  collectionNameOf,
  CommandContext,
  CommandDefinition,
  cursorReply,
  optionalDocument,
  optionalNumber,
} from './context';
import { badValue, unsupported } from '../engine/errors';
import { commandVariables } from '../engine/expressions';
import { runPipeline, stagesOf } from '../engine/pipeline';
import { Document, isNumeric, isPlainDocument, numberOf } from '../engine/values';
import { collStatsDocument } from './coll-stats';
import { currentOpDocuments } from './current-op';
import { explainReply } from './explain';
import { openChangeStream } from './change-stream';

type RunStages = (collection: CollectionView | undefined, source?: Document[]) => Document[];

/**
 * Where the pipeline reads from: a collection, the document of a leading `$collStats`, or (on
 * `{ aggregate: 1 }`) the operations of a leading `$currentOp`; those leading stages are taken
 * off `stages` before the rest runs.
 */
function readSource(
  command: Document,
  context: CommandContext,
  stages: Array<[string, unknown]>,
  run: RunStages,
): { namespace: string; results: Document[] } {
  const { server, database } = context;
  const databaseLevel = isNumeric(command.aggregate) && numberOf(command.aggregate) === 1;
  if (databaseLevel && stages[0]?.[0] === '$currentOp') {
    const operations = currentOpDocuments(command, context, stages.shift()![1]);
    return { namespace: `${database}.$cmd.aggregate`, results: run(undefined, operations) };
  }
  if (typeof command.aggregate !== 'string') throw unsupported('database-level aggregate');
  const name = collectionNameOf(command, 'aggregate');
  const collStats =
    stages[0]?.[0] === '$collStats'
      ? [collStatsDocument(context, name, stages.shift()![1])]
      : undefined;
  return {
    namespace: `${database}.${name}`,
    results: run(server.store.get(database, name), collStats),
  };
}

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
    const pipeline = Array.isArray(command.pipeline) ? (command.pipeline as unknown[]) : [];
    const streaming = isPlainDocument(pipeline[0]) && '$changeStream' in pipeline[0];
    if (command.explain === true) {
      if (streaming) throw unsupported('explain of $changeStream');
      const { explain: _explain, ...inner } = command;
      // The command itself passed the registry's checks; `inner` is it without `explain`.
      return explainReply(inner, 'aggregate', 'queryPlanner', context);
    }
    const cursor = optionalDocument(command, 'cursor');
    if (!cursor)
      throw badValue(
        "The 'cursor' option is required, except for aggregate with the explain argument",
      );
    const stages = stagesOf(command.pipeline);
    const variables = commandVariables(command.let, context.server.now());
    if (streaming) {
      const [, spec] = stages.shift()!;
      const batchSize = optionalNumber(cursor, 'batchSize');
      return openChangeStream(command, context, spec, stages, variables, batchSize);
    }
    const { namespace, results } = readSource(command, context, stages, (collection, source) =>
      runPipeline(collection, stages, variables, source),
    );
    const { batch, id } = context.server.cursors.openCursor(
      namespace,
      results,
      optionalNumber(cursor, 'batchSize'),
    );
    return cursorReply(namespace, batch, id, true);
  },
};
