/**
 * `collStats` and the `$collStats` stage (storageStats and count; latencyStats and
 * queryExecStats are refused), sized as engine/stats.ts measures. A missing collection is
 * NamespaceNotFound (26), as in mongod 7.
 */
import { CommandError, ErrorCode, unsupported } from '../engine/errors';
import { collectionSizes, storageStats } from '../engine/stats';
import { Document, isPlainDocument } from '../engine/values';
import { collectionNameOf, CommandContext, CommandDefinition } from './context';
import { scaleOf } from './scale';

function sizesOf(context: CommandContext, name: string) {
  const collection = context.server.store.get(context.database, name);
  if (!collection) {
    throw new CommandError(
      ErrorCode.NamespaceNotFound,
      `Collection [${context.database}.${name}] not found.`,
    );
  }
  return collectionSizes(collection);
}

export const collStats: CommandDefinition = {
  name: 'collStats',
  aliases: ['collstats'],
  fields: ['scale', 'verbose'],
  run(command, context) {
    const name = collectionNameOf(command, Object.keys(command)[0]);
    const stats = storageStats(sizesOf(context, name), scaleOf(command));
    return { ns: `${context.database}.${name}`, ...stats, ok: 1 };
  },
};

const COLL_STATS_OPTIONS = new Set(['storageStats', 'count']);

/** The one document a leading `$collStats` stage produces. */
export function collStatsDocument(context: CommandContext, name: string, spec: unknown): Document {
  if (!isPlainDocument(spec))
    throw new CommandError(ErrorCode.FailedToParse, '$collStats must take a nested object');
  for (const option of Object.keys(spec)) {
    if (!COLL_STATS_OPTIONS.has(option)) throw unsupported(`$collStats ${option}`);
  }
  const result: Document = {
    ns: `${context.database}.${name}`,
    host: `127.0.0.1:${context.server.port}`,
    localTime: new Date(),
  };
  if (spec.storageStats !== undefined || spec.count !== undefined) {
    const sizes = sizesOf(context, name);
    if (isPlainDocument(spec.storageStats))
      result.storageStats = storageStats(sizes, scaleOf(spec.storageStats));
    if (spec.count !== undefined) result.count = sizes.count;
  }
  return result;
}
