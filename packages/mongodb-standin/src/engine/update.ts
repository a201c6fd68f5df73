/**
 * Applying an update document to a stored document, copy-on-write: the input is never mutated,
 * so an image already handed out (findAndModify's pre- or post-image) can never change later.
 * Supports replacement documents, pipelines of update stages (pipeline-update.ts), and $set, $unset, $inc (MongoDB's numeric promotion), $max,
 * $min, $setOnInsert (only when the update inserts), $currentDate, on paths that may hold `$[]`
 * and `$[<identifier>]` segments (array-filters.ts). `_id` is immutable, and two operators
 * touching overlapping paths are refused (code 40), as in mongod.
 */
import { Long } from 'bson';
import { badValue, CommandError, ErrorCode, unsupported } from './errors';
import { ArrayFilters, assertFiltersUsed, concretePaths } from './array-filters';
import { Variables } from './expressions';
import { assertReplacementNames } from './field-names';
import { addNumbers } from './numbers';
import { getPath, setPath, unsetPath } from './paths';
import { stagesOf } from './pipeline';
import { applyPipelineUpdate, checkUpdateStage } from './pipeline-update';
import {
  cloneValue,
  compareValues,
  Document,
  isNumeric,
  isPlainDocument,
  valuesEqual,
  withIdFirst,
} from './values';

type FieldUpdate = (doc: Document, path: string, operand: unknown) => void;

const NO_ARRAY_FILTERS: ArrayFilters = new Map();

function typeName(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'array';
  if (isPlainDocument(value)) return 'object';
  if (value === null) return 'null';
  return typeof value;
}

const FIELD_UPDATES: Record<string, FieldUpdate> = {
  $set: (doc, path, operand) => setPath(doc, path, cloneValue(operand)),
  $setOnInsert: (doc, path, operand) => setPath(doc, path, cloneValue(operand)),
  $unset: (doc, path) => unsetPath(doc, path),
  $inc: (doc, path, operand) => {
    if (!isNumeric(operand)) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `Cannot increment with non-numeric argument: {${path}: ${JSON.stringify(operand)}}`,
      );
    }
    const current = getPath(doc, path);
    if (current === undefined) return setPath(doc, path, operand);
    if (!isNumeric(current)) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `Cannot apply $inc to a value of non-numeric type. {_id: ${String(doc._id)}} has the field '${path}' of non-numeric type ${typeName(current)}`,
      );
    }
    const sum = addNumbers(current, operand);
    if (sum === null) {
      throw badValue(
        `Failed to apply $inc operations to current value ((NumberLong)${(current as Long).toString()}) for document {_id: ${String(doc._id)}}`,
      );
    }
    setPath(doc, path, sum);
  },
  $max: (doc, path, operand) => {
    const current = getPath(doc, path);
    if (current === undefined || compareValues(operand, current) > 0)
      setPath(doc, path, cloneValue(operand));
  },
  $min: (doc, path, operand) => {
    const current = getPath(doc, path);
    if (current === undefined || compareValues(operand, current) < 0)
      setPath(doc, path, cloneValue(operand));
  },
  $currentDate: (doc, path, operand) => {
    if (isPlainDocument(operand) && operand.$type === 'timestamp')
      throw unsupported('$currentDate timestamps');
    setPath(doc, path, new Date());
  },
};

/** MongoDB's update operators the stand-in refuses (any other `$` name is not an operator at all). */
const UNIMPLEMENTED_OPERATORS = new Set([
  '$mul',
  '$rename',
  '$addToSet',
  '$pop',
  '$pull',
  '$push',
  '$pullAll',
  '$bit',
]);

/** Refuses an operator that is unknown, unimplemented or not given a document of fields. */
function checkOperator(operator: string, fields: unknown): void {
  if (!FIELD_UPDATES[operator]) {
    if (UNIMPLEMENTED_OPERATORS.has(operator)) throw unsupported(`the update operator ${operator}`);
    throw new CommandError(
      ErrorCode.FailedToParse,
      `Unknown modifier: ${operator}. Expected a valid update modifier or pipeline-style update specified as an array`,
    );
  }
  if (!isPlainDocument(fields)) {
    throw new CommandError(
      ErrorCode.FailedToParse,
      `Modifiers operate on fields but we found type ${typeName(fields)} instead. For example: {$mod: {<field>: ...}} not {${operator}: ${JSON.stringify(fields)}}`,
    );
  }
}

/**
 * Refuses what an update could never run, before any document is matched (mongod parses the
 * update first, so the answer does not depend on the data): unknown or unimplemented operators,
 * and update-pipeline stages that are unknown or not allowed.
 */
export function validateUpdate(update: unknown): void {
  if (Array.isArray(update)) {
    for (const [name] of stagesOf(update)) checkUpdateStage(name);
  } else if (isPlainDocument(update) && isOperatorUpdate(update)) {
    for (const [operator, fields] of Object.entries(update)) checkOperator(operator, fields);
  }
}

export function isOperatorUpdate(update: Document): boolean {
  const keys = Object.keys(update);
  return keys.length > 0 && keys[0].startsWith('$');
}

function refuseConflicts(paths: string[]): void {
  const sorted = [...paths].sort();
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1];
    if (sorted[i] === previous || sorted[i].startsWith(`${previous}.`)) {
      throw new CommandError(
        ErrorCode.ConflictingUpdateOperators,
        `Updating the path '${sorted[i]}' would create a conflict at '${previous}'`,
      );
    }
  }
}

function immutableIdError(): CommandError {
  return new CommandError(
    ErrorCode.ImmutableField,
    "Performing an update on the path '_id' would modify the immutable field '_id'",
  );
}

/** A field an operator update wrote or removed, as the change history describes it. */
export interface AppliedPath {
  path: string;
  removed: boolean;
}

function applyOperators(
  original: Document,
  update: Document,
  { inserting = false, arrayFilters = NO_ARRAY_FILTERS, query }: UpdateContext,
  applied: AppliedPath[],
): Document {
  const doc = cloneValue(original);
  const touched: string[] = [];
  for (const [operator, fields] of Object.entries(update)) {
    checkOperator(operator, fields);
    touched.push(...Object.keys(fields as Document));
  }
  assertFiltersUsed(touched, arrayFilters, update);
  for (const [operator, fields] of Object.entries(update)) {
    if (operator === '$setOnInsert' && !inserting) continue;
    for (const [path, operand] of Object.entries(fields as Document)) {
      for (const concrete of concretePaths(original, path, arrayFilters, query)) {
        FIELD_UPDATES[operator](doc, concrete, operand);
        applied.push({ path: concrete, removed: operator === '$unset' });
      }
    }
  }
  refuseConflicts(touched);
  if ('_id' in original && !valuesEqual(doc._id, original._id)) throw immutableIdError();
  return doc;
}

function applyReplacement(original: Document, replacement: Document): Document {
  assertReplacementNames(replacement);
  if ('_id' in replacement && '_id' in original && !valuesEqual(replacement._id, original._id)) {
    throw immutableIdError();
  }
  const doc = cloneValue(replacement);
  if ('_id' in original) doc._id = original._id;
  return withIdFirst(doc);
}

/** What an update runs with besides the document: see applyUpdate. */
export interface UpdateContext {
  /** building an upserted document ($setOnInsert applies) */
  inserting?: boolean;
  /** for the `$[<identifier>]` segments of operator paths */
  arrayFilters?: ArrayFilters;
  /** the command's `let` and `$$NOW`, for pipeline-style updates */
  variables?: Variables;
  /** the query that selected the document, for the positional `$` */
  query?: Document;
}

/**
 * How an update rewrote a document: the operator paths it applied (in order), or a whole new
 * document (`replacement`: a replacement; `pipeline`: a pipeline of update stages).
 */
export type UpdateStyle =
  { kind: 'operators'; applied: AppliedPath[] } | { kind: 'replacement' } | { kind: 'pipeline' };

/** The document after `update`: operators, a replacement, or a pipeline of update stages. */
export function applyUpdate(
  original: Document,
  update: unknown,
  context: UpdateContext = {},
): Document {
  return applyUpdateWithStyle(original, update, context).doc;
}

/** applyUpdate, also saying how the update rewrote the document (for the change history). */
export function applyUpdateWithStyle(
  original: Document,
  update: unknown,
  context: UpdateContext = {},
): { doc: Document; style: UpdateStyle } {
  const { arrayFilters = NO_ARRAY_FILTERS, variables = {} } = context;
  if (Array.isArray(update)) {
    if (arrayFilters.size > 0)
      throw new CommandError(
        ErrorCode.FailedToParse,
        'arrayFilters may not be specified for pipeline-style updates',
      );
    const next = applyPipelineUpdate(original, stagesOf(update), variables);
    const style: UpdateStyle = { kind: 'pipeline' };
    if (!('_id' in original)) return { doc: next, style };
    // A pipeline whose result has no _id (e.g. $replaceRoot) keeps the document's, as in mongod.
    if (!('_id' in next)) return { doc: { _id: original._id, ...next }, style };
    if (!valuesEqual(next._id, original._id)) throw immutableIdError();
    return { doc: withIdFirst(next), style };
  }
  if (!isPlainDocument(update))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      'Update argument must be either an object or an array',
    );
  if (isOperatorUpdate(update)) {
    const applied: AppliedPath[] = [];
    return {
      doc: applyOperators(original, update, context, applied),
      style: { kind: 'operators', applied },
    };
  }
  if (arrayFilters.size > 0)
    throw badValue('arrayFilters may only be specified with update operators');
  return { doc: applyReplacement(original, update), style: { kind: 'replacement' } };
}

/** The seed of an upserted document: the query's equality fields (dotted paths nested). */
export function upsertSeed(equalities: Map<string, unknown>): Document {
  const seed: Document = {};
  for (const [path, value] of equalities) {
    if (isPlainDocument(value) && Object.keys(value).some((k) => k.startsWith('$'))) continue;
    setPath(seed, path, cloneValue(value));
  }
  return seed;
}
