/**
 * `explain` of find, count, distinct, aggregate, update, delete and findAndModify (and
 * aggregate's `explain: true`), at verbosity queryPlanner, executionStats or
 * allPlansExecution. The plan is the one the engine really runs (engine/explain.ts); the
 * statistics come from really running the read part. Writes are never applied: update and
 * delete report what they would match, modify or delete, computed on copies. The stand-in
 * considers one plan, so rejectedPlans and allPlansExecution are empty.
 */
import { performance } from 'node:perf_hooks';
import { parseArrayFilters } from '../engine/array-filters';
import { badValue, unsupported } from '../engine/errors';
import { commandVariables, Variables } from '../engine/expressions';
import { executionStats, PlanInput, planStages, queryPlanner } from '../engine/explain';
import { runPipelinePrefix, stagesOf } from '../engine/pipeline';
import { emptyExecution, executeQuery, QueryOptions } from '../engine/query';
import { applyUpdate } from '../engine/update';
import { Document, isPlainDocument, numberOf, sameBson } from '../engine/values';
import {
  collectionNameOf,
  CommandContext,
  CommandDefinition,
  optionalDocument,
  optionalNumber,
} from './context';

const VERBOSITIES = new Set(['queryPlanner', 'executionStats', 'allPlansExecution']);

/** The commands explain understands, by the definition that runs each. */
const EXPLAINABLE = new Set([
  'find',
  'count',
  'distinct',
  'aggregate',
  'update',
  'delete',
  'findAndModify',
]);

interface Explained {
  plan: PlanInput;
  /** the stage above the query (COUNT, UPDATE, DELETE), given the query's stage */
  wrap?: (stage: Document) => Document;
  nReturned: number;
}

function timed<T>(run: () => T): { value: T; millis: number } {
  const started = performance.now();
  const value = run();
  return { value, millis: Math.round(performance.now() - started) };
}

function query(
  context: CommandContext,
  name: string,
  filter: Document | undefined,
  options: QueryOptions,
  projection?: Document,
): PlanInput {
  const collection = context.server.store.get(context.database, name);
  const execution = collection ? executeQuery(collection, filter, options) : emptyExecution();
  return { filter, options, projection, execution };
}

function onlyStatement(command: Document, field: string): Document {
  const statements = command[field];
  if (!Array.isArray(statements) || statements.length !== 1 || !isPlainDocument(statements[0]))
    throw badValue(`explain of ${field} needs exactly one statement`);
  return statements[0];
}

/** An UPDATE stage over the query: what it would match, change (on copies) and upsert. */
function updating(
  plan: PlanInput,
  update: unknown,
  upsert: boolean,
  rawArrayFilters: unknown,
  variables: Variables,
): Explained {
  const found = plan.execution.docs;
  const arrayFilters = parseArrayFilters(rawArrayFilters);
  const context = { arrayFilters, variables, query: plan.filter ?? undefined };
  const nWouldModify = found.filter(
    (doc) => !sameBson(applyUpdate(doc, update, context), doc),
  ).length;
  const stage = {
    stage: 'UPDATE',
    nMatched: found.length,
    nWouldModify,
    nWouldUpsert: upsert && found.length === 0 ? 1 : 0,
  };
  return { plan, wrap: (inputStage) => ({ ...stage, inputStage }), nReturned: 0 };
}

/** A DELETE stage over the query: what it would delete. */
function deleting(plan: PlanInput): Explained {
  const nWouldDelete = plan.execution.docs.length;
  return {
    plan,
    wrap: (inputStage) => ({ stage: 'DELETE', nWouldDelete, inputStage }),
    nReturned: 0,
  };
}

function explainOne(
  kind: string,
  command: Document,
  context: CommandContext,
  name: string,
): Explained {
  const variables = commandVariables(command.let, context.server.now());
  const read = (filter: Document | undefined, options: QueryOptions, projection?: Document) =>
    query(context, name, filter, { ...options, variables }, projection);
  switch (kind) {
    case 'find': {
      const limit = optionalNumber(command, 'limit') ?? 0;
      const plan = read(
        optionalDocument(command, 'filter'),
        {
          sort: optionalDocument(command, 'sort'),
          skip: optionalNumber(command, 'skip'),
          limit: Math.abs(limit),
        },
        optionalDocument(command, 'projection'),
      );
      return { plan, nReturned: plan.execution.docs.length };
    }
    case 'count': {
      const filter = optionalDocument(command, 'query');
      if (!filter || Object.keys(filter).length === 0) {
        // The count command answers an empty query from the collection's size, reading nothing.
        return {
          plan: { filter, options: {}, execution: emptyExecution() },
          wrap: () => ({ stage: 'RECORD_STORE_FAST_COUNT' }),
          nReturned: 0,
        };
      }
      const plan = read(filter, {
        skip: optionalNumber(command, 'skip'),
        limit: Math.abs(optionalNumber(command, 'limit') ?? 0),
      });
      return {
        plan,
        wrap: (inputStage) => ({ stage: 'COUNT', inputStage }),
        nReturned: 0,
      };
    }
    case 'distinct': {
      const plan = read(optionalDocument(command, 'query'), {});
      return { plan, nReturned: plan.execution.docs.length };
    }
    case 'update': {
      const statement = onlyStatement(command, 'updates');
      const limit = statement.multi === true ? 0 : 1;
      const plan = read(statement.q as Document, { limit });
      return updating(
        plan,
        statement.u,
        statement.upsert === true,
        statement.arrayFilters,
        variables,
      );
    }
    case 'delete': {
      const statement = onlyStatement(command, 'deletes');
      const limit = numberOf(statement.limit ?? 0);
      return deleting(read(statement.q as Document, { limit }));
    }
    case 'findAndModify': {
      const plan = read(optionalDocument(command, 'query'), {
        sort: optionalDocument(command, 'sort'),
        limit: 1,
      });
      return command.remove === true
        ? deleting(plan)
        : updating(plan, command.update, command.upsert === true, command.arrayFilters, variables);
    }
    default:
      throw unsupported(`explain of ${kind}`);
  }
}

function serverInfo(context: CommandContext): Document {
  return {
    host: '127.0.0.1',
    port: context.server.port,
    version: '7.0.0',
    gitVersion: 'sequential-ids MongoDB stand-in (not MongoDB)',
  };
}

function sections(
  namespace: string,
  explained: Explained,
  millis: number,
  withStats: boolean,
): Document {
  const wrap = explained.wrap ?? ((stage: Document) => stage);
  const planner = queryPlanner(namespace, explained.plan);
  planner.winningPlan = wrap(planner.winningPlan as Document);
  if (!withStats) return { queryPlanner: planner };
  const stats = executionStats(explained.plan, explained.nReturned, millis);
  stats.executionStages = wrap(planStages(explained.plan, true));
  return { queryPlanner: planner, executionStats: stats };
}

/** An aggregate's explain: the query its leading stages became, then the stages run after it. */
function explainAggregate(
  command: Document,
  context: CommandContext,
  withStats: boolean,
): Document {
  const name = collectionNameOf(command, 'aggregate');
  const namespace = `${context.database}.${name}`;
  const stages = stagesOf(command.pipeline);
  if (stages.some(([stage]) => stage === '$collStats')) throw unsupported('explain of $collStats');
  const collection = context.server.store.get(context.database, name);
  const variables = commandVariables(command.let, context.server.now());
  const { value: prefix, millis } = timed(() => runPipelinePrefix(collection, stages, variables));
  const plan: PlanInput = {
    filter: prefix.filter,
    options: prefix.options,
    execution: prefix.execution ?? emptyExecution(),
  };
  const explained = { plan, nReturned: plan.execution.docs.length };
  const cursor = sections(namespace, explained, millis, withStats);
  const rest = (command.pipeline as unknown[]).slice(prefix.consumed);
  return rest.length === 0 ? cursor : { stages: [{ $cursor: cursor }, ...rest] };
}

/** `kind`: the canonical name of the command `inner` is, as its definition gives it. */
export function explainReply(
  inner: Document,
  kind: string,
  verbosity: string,
  context: CommandContext,
): Document {
  if (!EXPLAINABLE.has(kind)) throw unsupported(`explain of ${kind}`);
  const withStats = verbosity !== 'queryPlanner';
  const common = { command: inner, serverInfo: serverInfo(context), ok: 1 };
  if (kind === 'aggregate')
    return { explainVersion: '1', ...explainAggregate(inner, context, withStats), ...common };
  const name = collectionNameOf(inner, Object.keys(inner)[0]);
  const { value: explained, millis } = timed(() => explainOne(kind, inner, context, name));
  return {
    explainVersion: '1',
    ...sections(`${context.database}.${name}`, explained, millis, withStats),
    ...common,
  };
}

/**
 * The `explain` command. It refuses the inner command as running it would, so it is given the
 * registry's lookup (registry.ts builds it) rather than importing the registry, which lists it.
 */
export const explainCommand = (
  definitionFor: (command: Document) => CommandDefinition,
): CommandDefinition => ({
  name: 'explain',
  fields: ['verbosity'],
  run(command, context) {
    const inner = optionalDocument(command, 'explain');
    if (!inner) throw badValue('explain command requires a nested object');
    const verbosity = command.verbosity === undefined ? 'allPlansExecution' : command.verbosity;
    if (typeof verbosity !== 'string' || !VERBOSITIES.has(verbosity))
      throw badValue(
        `verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}`,
      );
    return explainReply(inner, definitionFor(inner).name, verbosity, context);
  },
});
