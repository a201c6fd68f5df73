/**
 * Pipeline-style updates (`u: [ stages ]`), with the stages mongod allows there and the
 * expressions engine/expressions.ts evaluates: `$set`/`$addFields` (a plain document value
 * merges into an embedded document, as in aggregation), `$unset`, `$project` (inclusion, with
 * computed fields, or exclusion), `$replaceRoot`/`$replaceWith`. Other stages are not allowed in an update
 * (InvalidOptions, 72, as mongod says). `_id` may not change or disappear. Copy-on-write like
 * every update: the original is never mutated.
 */
import { CommandError, ErrorCode, LocationCode, unsupported } from './errors';
import { evaluate, isTruthy, Variables } from './expressions';
import { getPath, setPath, unsetPath } from './paths';
import { compileProjection } from './projection';
import { unknownOrUnsupportedStage } from './stage-names';
import { cloneValue, Document, isNumeric, isPlainDocument } from './values';

const ALLOWED_STAGES = new Set([
  '$addFields',
  '$set',
  '$unset',
  '$project',
  '$replaceRoot',
  '$replaceWith',
]);

function isExpressionObject(value: unknown): value is Document {
  if (!isPlainDocument(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0].startsWith('$');
}

/** `$set`/`$addFields` of one field: a plain document merges, anything else is evaluated. */
function addField(doc: Document, path: string, spec: unknown, root: Document, vars: Variables) {
  if (isPlainDocument(spec) && !isExpressionObject(spec) && Object.keys(spec).length > 0) {
    const current = getPath(doc, path);
    if (Array.isArray(current))
      throw unsupported(`$set of embedded fields into the array '${path}'`);
    if (!isPlainDocument(current)) setPath(doc, path, {});
    for (const [field, value] of Object.entries(spec)) {
      if (field.startsWith('$') || field.includes('.'))
        throw new CommandError(
          ErrorCode.FailedToParse,
          `FieldPath field names may not start with '$' or contain '.': ${field}`,
        );
      addField(doc, `${path}.${field}`, value, root, vars);
    }
    return;
  }
  const value = evaluate(spec, root, vars);
  if (value === undefined) unsetPath(doc, path);
  else setPath(doc, path, cloneValue(value));
}

/** Whether a $project holds computed fields (expressions, literals, nested specifications). */
function hasComputedFields(spec: Document): boolean {
  return Object.values(spec).some((value) => !isNumeric(value) && typeof value !== 'boolean');
}

/**
 * An inclusion $project with computed fields, as aggregation runs it: `1`/`true` keeps a field,
 * a nested plain document projects the embedded document field by field, anything else is an
 * expression (a string not starting with `$` is a literal) whose value is set, or left out when
 * missing. Excluding a field other than `_id` is refused, as in mongod. Nested specifications
 * over arrays are refused by name.
 */
function projectComputing(
  doc: Document,
  spec: Document,
  root: Document,
  vars: Variables,
  top: boolean,
): Document {
  const result: Document = {};
  if (top && '_id' in doc && !('_id' in spec)) result._id = doc._id;
  for (const [path, value] of Object.entries(spec)) {
    if (isNumeric(value) || typeof value === 'boolean') {
      if (!isTruthy(value)) {
        if (top && path === '_id') continue;
        throw new CommandError(
          LocationCode.ExclusionInInclusionProjection,
          `Invalid $project :: caused by :: Cannot do exclusion on field ${path} in inclusion projection`,
        );
      }
      const kept = getPath(doc, path);
      if (kept !== undefined) setPath(result, path, cloneValue(kept));
    } else if (isPlainDocument(value) && !isExpressionObject(value)) {
      const inner = getPath(doc, path);
      if (Array.isArray(inner))
        throw unsupported(`$project of embedded fields of the array '${path}'`);
      const nested = isPlainDocument(inner) ? inner : {};
      setPath(result, path, projectComputing(nested, value, root, vars, false));
    } else {
      const computed = evaluate(value, root, vars);
      if (computed !== undefined) setPath(result, path, cloneValue(computed));
    }
  }
  return result;
}

function newRoot(value: unknown): Document {
  if (!isPlainDocument(value)) {
    throw new CommandError(
      LocationCode.ReplacementNotDocument,
      `'replacement document' must evaluate to an object, but resulting value was: ${JSON.stringify(value) ?? 'MISSING'}`,
    );
  }
  return cloneValue(value);
}

/**
 * One document through one of the reshaping stages (also the aggregation pipeline's
 * `$addFields`/`$set`, `$unset`, `$replaceRoot`/`$replaceWith`).
 */
export function reshape(doc: Document, name: string, argument: unknown, vars: Variables): Document {
  switch (name) {
    case '$addFields':
    case '$set': {
      if (!isPlainDocument(argument))
        throw new CommandError(
          LocationCode.AddFieldsNotDocument,
          `${name} specification stage must be an object`,
        );
      const next = cloneValue(doc);
      for (const [path, spec] of Object.entries(argument)) addField(next, path, spec, doc, vars);
      return next;
    }
    case '$unset': {
      const paths = Array.isArray(argument) ? argument : [argument];
      if (!paths.every((path) => typeof path === 'string'))
        throw new CommandError(
          LocationCode.UnsetNotFieldNames,
          '$unset specification must be a string or an array of strings',
        );
      const next = cloneValue(doc);
      for (const path of paths as string[]) unsetPath(next, path);
      return next;
    }
    case '$project':
      if (!isPlainDocument(argument))
        throw new CommandError(
          LocationCode.ProjectNotDocument,
          '$project specification must be an object',
        );
      return hasComputedFields(argument)
        ? projectComputing(doc, argument, doc, vars, true)
        : compileProjection(argument)(doc);
    case '$replaceRoot':
      if (!isPlainDocument(argument) || !('newRoot' in argument))
        throw new CommandError(
          LocationCode.MissingNewRoot,
          'no newRoot specified for the $replaceRoot stage',
        );
      return newRoot(evaluate(argument.newRoot, doc, vars));
    default:
      return newRoot(evaluate(argument, doc, vars));
  }
}

/** The document after a pipeline-style update (stages as [name, argument] pairs). */
export function applyPipelineUpdate(
  original: Document,
  stages: Array<[string, unknown]>,
  variables: Variables,
): Document {
  let doc = original;
  for (const [name, argument] of stages) {
    checkUpdateStage(name);
    doc = reshape(doc, name, argument, variables);
  }
  return doc;
}

/** Refuses a stage an update pipeline may not hold: unknown to mongod (40324), or not allowed. */
export function checkUpdateStage(name: string): void {
  if (ALLOWED_STAGES.has(name)) return;
  const unknown = unknownOrUnsupportedStage(name);
  if (unknown.code === LocationCode.UnrecognizedStage) throw unknown;
  throw new CommandError(
    ErrorCode.InvalidOptions,
    `${name} is not allowed to be used within an update`,
  );
}
