/**
 * Pipeline-style updates (`u: [ stages ]`), with the stages mongod allows there and the
 * expressions engine/expressions.ts evaluates: `$set`/`$addFields` (a plain document value
 * merges into an embedded document, as in aggregation), `$unset`, `$project` (inclusion or
 * exclusion), `$replaceRoot`/`$replaceWith`. Other stages are not allowed in an update
 * (InvalidOptions, 72, as mongod says). `_id` may not change or disappear. Copy-on-write like
 * every update: the original is never mutated.
 */
import { CommandError, ErrorCode, LocationCode, unsupported } from './errors';
import { evaluate, Variables } from './expressions';
import { getPath, setPath, unsetPath } from './paths';
import { compileProjection } from './projection';
import { cloneValue, Document, isPlainDocument } from './values';

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
      return compileProjection(argument)(doc);
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
    if (!ALLOWED_STAGES.has(name)) {
      throw new CommandError(
        ErrorCode.InvalidOptions,
        `${name} is not allowed to be used within an update`,
      );
    }
    doc = reshape(doc, name, argument, variables);
  }
  return doc;
}
