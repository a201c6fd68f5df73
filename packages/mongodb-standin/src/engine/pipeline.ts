/**
 * Aggregation pipelines as far as countDocuments, this service and data repair use them:
 * $match, $sort, $skip, $limit, $project (inclusion with computed fields, or exclusion), $count, $group with $sum, $min,
 * $max, $first, $last, and the reshaping stages shared with pipeline-style updates ($addFields/
 * $set, $unset, $replaceRoot/$replaceWith, see pipeline-update.ts). The first $match (and a
 * following $sort/$skip/$limit) is planned through executeQuery so indexes apply. Unknown stages
 * and accumulators are refused by name.
 */
import { Int32 } from 'bson';
import type { CollectionView } from './views';
import { badValue, unsupported } from './errors';
import { unknownOrUnsupportedStage } from './stage-names';
import { evaluate, Variables } from './expressions';
import { compileFilter } from './matcher';
import { addForExpression } from './numbers';
import { reshape } from './pipeline-update';
import { executeQuery, QueryExecution, QueryOptions } from './query';
import { comparatorFor } from './sort';
import {
  compareValues,
  Document,
  indexKeyOf,
  isNumeric,
  isPlainDocument,
  numberOf,
  setOwnField,
} from './values';

type Accumulator = { add(value: unknown): void; result(): unknown };

const ACCUMULATORS: Record<string, () => Accumulator> = {
  $sum: () => {
    let total: unknown = new Int32(0);
    return {
      add: (value) => {
        if (isNumeric(value)) total = addForExpression(total, value);
      },
      result: () => total,
    };
  },
  $min: () => extreme((order) => order < 0),
  $max: () => extreme((order) => order > 0),
  $first: () => {
    let first: unknown;
    let seen = false;
    return {
      add: (value) => {
        if (!seen) [first, seen] = [value, true];
      },
      result: () => first ?? null,
    };
  },
  $last: () => {
    let last: unknown = null;
    return { add: (value) => void (last = value ?? null), result: () => last };
  },
};

function extreme(better: (order: number) => boolean): Accumulator {
  let best: unknown = undefined;
  return {
    add: (value) => {
      if (
        value !== undefined &&
        value !== null &&
        (best === undefined || better(compareValues(value, best)))
      )
        best = value;
    },
    result: () => best ?? null,
  };
}

function group(docs: Document[], spec: Document, variables: Variables): Document[] {
  if (!('_id' in spec)) throw badValue('a group specification must include an _id');
  const fields = Object.entries(spec).filter(([field]) => field !== '_id');
  const parsed = fields.map(([field, accumulator]) => {
    if (!isPlainDocument(accumulator) || Object.keys(accumulator).length !== 1) {
      throw badValue(`The field '${field}' must be an accumulator object`);
    }
    const [operator, expression] = Object.entries(accumulator)[0];
    if (!ACCUMULATORS[operator]) throw unsupported(`the $group accumulator ${operator}`);
    return { field, operator, expression };
  });
  const groups = new Map<string, { id: unknown; accumulators: Accumulator[] }>();
  for (const doc of docs) {
    const id = evaluate(spec._id, doc, variables) ?? null;
    const key = indexKeyOf(id);
    let entry = groups.get(key);
    if (!entry) {
      entry = { id, accumulators: parsed.map(({ operator }) => ACCUMULATORS[operator]()) };
      groups.set(key, entry);
    }
    parsed.forEach(({ expression }, i) =>
      entry!.accumulators[i].add(evaluate(expression, doc, variables)),
    );
  }
  return [...groups.values()].map(({ id, accumulators }) => {
    const result: Document = { _id: id };
    parsed.forEach(({ field }, i) => setOwnField(result, field, accumulators[i].result()));
    return result;
  });
}

function stageOf(stage: unknown): [string, unknown] {
  if (!isPlainDocument(stage) || Object.keys(stage).length !== 1) {
    throw badValue('A pipeline stage specification object must contain exactly one field.');
  }
  return Object.entries(stage)[0];
}

function nonNegative(name: string, value: unknown): number {
  if (!isNumeric(value) || numberOf(value) < 0) throw badValue(`invalid argument to ${name} stage`);
  return numberOf(value);
}

/** The leading $match [+ $sort] [+ $skip] [+ $limit] of a pipeline, run as one planned query. */
export interface PipelinePrefix {
  filter?: Document;
  options: QueryOptions;
  /** how many stages the query stands for */
  consumed: number;
  /** what the query did; null when there was nothing to read (no collection, or `$limit: 0`) */
  execution: QueryExecution | null;
}

export function runPipelinePrefix(
  collection: CollectionView | undefined,
  stages: Array<[string, unknown]>,
  variables: Variables,
): PipelinePrefix {
  let consumed = 0;
  let filter: Document | undefined;
  let sort: Document | undefined;
  let skip = 0;
  let limit = 0;
  if (stages[consumed]?.[0] === '$match' && isPlainDocument(stages[consumed][1]))
    filter = stages[consumed++][1] as Document;
  if (stages[consumed]?.[0] === '$sort' && isPlainDocument(stages[consumed][1]))
    sort = stages[consumed++][1] as Document;
  if (stages[consumed]?.[0] === '$skip') skip = nonNegative('$skip', stages[consumed++][1]);
  if (stages[consumed]?.[0] === '$limit') limit = nonNegative('$limit', stages[consumed++][1]);
  const options = { sort, skip, limit, variables };
  const nothingToRead = limit === 0 && stages[consumed - 1]?.[0] === '$limit';
  const execution = collection && !nothingToRead ? executeQuery(collection, filter, options) : null;
  if (!execution) compileFilter(filter, variables); // an unknown operator is refused whatever the data
  return { filter, options, consumed, execution };
}

/** The stages of a pipeline as [name, argument] pairs; BadValue unless an array of one-field stages. */
export function stagesOf(pipeline: unknown): Array<[string, unknown]> {
  if (!Array.isArray(pipeline)) throw badValue("'pipeline' option must be specified as an array");
  return pipeline.map(stageOf);
}

/**
 * Runs stages over a collection, or over `source` documents when a leading stage that reads no
 * collection (the command's `$collStats`) produced them.
 */
export function runPipeline(
  collection: CollectionView | undefined,
  stages: Array<[string, unknown]>,
  variables: Variables,
  source?: Document[],
): Document[] {
  let docs = source ?? [];
  let consumed = 0;
  if (!source) {
    const prefix = runPipelinePrefix(collection, stages, variables);
    docs = prefix.execution?.docs ?? [];
    consumed = prefix.consumed;
  }
  for (const [name, argument] of stages.slice(consumed)) {
    switch (name) {
      case '$match':
        docs = docs.filter(compileFilter(argument as Document, variables));
        break;
      case '$sort':
        docs = [...docs].sort(comparatorFor(argument as Document));
        break;
      case '$skip':
        docs = docs.slice(nonNegative(name, argument));
        break;
      case '$limit':
        docs = docs.slice(0, nonNegative(name, argument));
        break;
      case '$project':
      case '$addFields':
      case '$set':
      case '$unset':
      case '$replaceRoot':
      case '$replaceWith':
        docs = docs.map((doc) => reshape(doc, name, argument, variables));
        break;
      case '$group':
        docs = group(docs, argument as Document, variables);
        break;
      case '$count':
        if (typeof argument !== 'string' || argument.length === 0)
          throw badValue('$count needs a field name');
        docs = docs.length === 0 ? [] : [{ [argument]: new Int32(docs.length) }];
        break;
      default:
        throw unknownOrUnsupportedStage(name);
    }
  }
  return docs;
}
