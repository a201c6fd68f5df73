/**
 * The plan explain reports, built from what executeQuery did (never from a guess): the access
 * path it took (IDHACK for an `_id`-only equality, IXSCAN under FETCH for the `_id` index or a
 * unique index, COLLSCAN otherwise, EOF for a missing collection), then an in-memory SORT when no index gave the order, then
 * SKIP, LIMIT and the projection, in mongod's stage names. With statistics, every stage carries
 * nReturned and the scan stages the keys and documents they examined.
 */
import { QueryExecution, QueryOptions } from './query';
import { Document } from './values';

export interface PlanInput {
  filter?: Document | null;
  options: QueryOptions;
  projection?: Document | null;
  execution: QueryExecution;
}

function nonEmpty(filter: Document | null | undefined): Document | undefined {
  return filter && Object.keys(filter).length > 0 ? filter : undefined;
}

/** The stage tree; `withStats` adds executionStats' per-stage counters. */
export function planStages(input: PlanInput, withStats: boolean): Document {
  const { execution, options } = input;
  const filter = nonEmpty(input.filter);
  const skip = options.skip ?? 0;
  const limit = options.limit ?? 0;
  const stats = (counters: Document): Document => (withStats ? counters : {});
  const { access } = execution;
  let stage: Document;
  if (access.kind === 'EOF') stage = { stage: 'EOF', ...stats({ nReturned: 0 }) };
  else if (access.kind === 'IDHACK') {
    stage = {
      stage: 'IDHACK',
      ...stats({
        nReturned: execution.matched,
        keysExamined: execution.keysExamined,
        docsExamined: execution.docsExamined,
      }),
    };
  } else if (access.kind === 'IXSCAN') {
    const { index } = access;
    stage = {
      stage: 'FETCH',
      ...(filter ? { filter } : {}),
      ...stats({ nReturned: execution.matched, docsExamined: execution.docsExamined }),
      inputStage: {
        stage: 'IXSCAN',
        keyPattern: index.spec.key,
        indexName: index.name,
        isMultiKey: false,
        isUnique: index.unique,
        isSparse: index.spec.sparse === true,
        isPartial: index.spec.partialFilterExpression !== undefined,
        direction: access.direction === -1 ? 'backward' : 'forward',
        ...stats({ nReturned: execution.docsExamined, keysExamined: execution.keysExamined }),
      },
    };
  } else {
    stage = {
      stage: 'COLLSCAN',
      ...(filter ? { filter } : {}),
      direction: 'forward',
      ...stats({ nReturned: execution.matched, docsExamined: execution.docsExamined }),
    };
  }
  let flowing = execution.matched;
  if (execution.sortedInMemory) {
    stage = {
      stage: 'SORT',
      sortPattern: options.sort,
      type: 'simple',
      ...(limit > 0 ? { limitAmount: skip + limit } : {}),
      ...stats({ nReturned: limit > 0 ? Math.min(flowing, skip + limit) : flowing }),
      inputStage: stage,
    };
  }
  if (skip > 0) {
    flowing = Math.max(0, Math.min(flowing, limit > 0 ? skip + limit : flowing) - skip);
    stage = {
      stage: 'SKIP',
      skipAmount: skip,
      ...stats({ nReturned: flowing }),
      inputStage: stage,
    };
  }
  if (limit > 0) {
    stage = {
      stage: 'LIMIT',
      limitAmount: limit,
      ...stats({ nReturned: execution.docs.length }),
      inputStage: stage,
    };
  }
  if (nonEmpty(input.projection)) {
    stage = {
      stage: 'PROJECTION_SIMPLE',
      transformBy: input.projection,
      ...stats({ nReturned: execution.docs.length }),
      inputStage: stage,
    };
  }
  return stage;
}

/** mongod's queryPlanner section for one query. */
export function queryPlanner(namespace: string, input: PlanInput): Document {
  return {
    namespace,
    indexFilterSet: false,
    parsedQuery: input.filter ?? {},
    maxIndexedOrSolutionsReached: false,
    maxIndexedAndSolutionsReached: false,
    maxScansToExplodeReached: false,
    winningPlan: planStages(input, false),
    rejectedPlans: [],
  };
}

/** mongod's executionStats section; `nReturned` is what the whole command returned. */
export function executionStats(input: PlanInput, nReturned: number, millis: number): Document {
  return {
    executionSuccess: true,
    nReturned,
    executionTimeMillis: millis,
    totalKeysExamined: input.execution.keysExamined,
    totalDocsExamined: input.execution.docsExamined,
    executionStages: planStages(input, true),
    allPlansExecution: [],
  };
}
