/**
 * Pipeline stage names as mongod knows them, so the stand-in refuses a stage it does not run the
 * way mongod would: a name mongod does not know is its own error (40324) before any document is
 * read; one of mongod's stages the stand-in lacks is a clear BadValue naming it.
 */
import { CommandError, LocationCode, unsupported } from './errors';
/** mongod's aggregation stage names: one of these the stand-in lacks is refused as unsupported. */
const MONGOD_STAGES = new Set([
  '$addFields',
  '$bucket',
  '$bucketAuto',
  '$changeStream',
  '$changeStreamSplitLargeEvent',
  '$collStats',
  '$count',
  '$currentOp',
  '$densify',
  '$documents',
  '$facet',
  '$fill',
  '$geoNear',
  '$graphLookup',
  '$group',
  '$indexStats',
  '$limit',
  '$listLocalSessions',
  '$listSampledQueries',
  '$listSearchIndexes',
  '$listSessions',
  '$lookup',
  '$match',
  '$merge',
  '$out',
  '$planCacheStats',
  '$project',
  '$querySettings',
  '$queryStats',
  '$redact',
  '$replaceRoot',
  '$replaceWith',
  '$sample',
  '$search',
  '$searchMeta',
  '$set',
  '$setWindowFields',
  '$shardedDataDistribution',
  '$skip',
  '$sort',
  '$sortByCount',
  '$unionWith',
  '$unset',
  '$unwind',
  '$vectorSearch',
]);

export function isMongodStage(name: string): boolean {
  return MONGOD_STAGES.has(name);
}

/**
 * The refusal of a stage the stand-in does not run: mongod's own for a name it does not know
 * (40324, whatever the data), a clear BadValue for one of mongod's stages it lacks.
 */
export function unknownOrUnsupportedStage(name: string): CommandError {
  if (MONGOD_STAGES.has(name)) return unsupported(`the aggregation stage ${name}`);
  return new CommandError(
    LocationCode.UnrecognizedStage,
    `Unrecognized pipeline stage name: '${name}'`,
  );
}
