/**
 * Aggregation expressions, as far as `$expr` filters, `$group`, pipeline-style updates and
 * this service need them: field paths ('$a.b'), variables (`$$ROOT`, `$$NOW`, `$$REMOVE`, a
 * command's `let`), literals, `$literal`, `$add`, `$ifNull`, the six comparisons (full BSON
 * order across types, as in aggregation), `$and`, `$or`, `$not`, `$cond`, and `$getField`,
 * `$setField`, `$unsetField` (a field named literally: dots and `$` are part of the name), and
 * `$dateToString` (./dates.ts).
 * Object expressions drop fields that evaluate to missing, as mongod does. Anything else is
 * refused by name rather than evaluated wrongly.
 */
import { dateToString } from './dates';
import { badValue, CommandError, LocationCode, unsupported } from './errors';
import { addForExpression } from './numbers';
import { getPath } from './paths';
import {
  compareValues,
  Document,
  isNumeric,
  isPlainDocument,
  numberOf,
  setOwnField,
} from './values';

type Operator = (args: unknown[], doc: Document) => unknown;

/**
 * User variables (a command's `let`, evaluated once) and `NOW`, readable as `$$name`; `$$ROOT`
 * and `$$CURRENT` are the document, `$$REMOVE` is missing.
 */
export type Variables = Readonly<Record<string, unknown>>;

/**
 * The variables of one command: `NOW` (`now`, the server's clock read once for the whole command)
 * and its `let`.
 */
export function commandVariables(letSpec: unknown, now: Date): Variables {
  const variables: Record<string, unknown> = { NOW: now };
  if (letSpec === undefined || letSpec === null) return variables;
  if (!isPlainDocument(letSpec)) throw badValue("'let' must be a document");
  for (const [name, expression] of Object.entries(letSpec)) {
    if (!/^[a-z][A-Za-z0-9_]*$/.test(name))
      throw badValue(`'${name}' starts with an invalid character for a user variable name`);
    variables[name] = evaluate(expression, {}, variables);
  }
  return variables;
}

function variable(reference: string, doc: Document, variables: Variables): unknown {
  const [name, ...path] = reference.slice(2).split('.');
  let value: unknown;
  if (name === 'ROOT' || name === 'CURRENT') value = doc;
  else if (name === 'REMOVE') return undefined;
  else if (Object.prototype.hasOwnProperty.call(variables, name)) value = variables[name];
  else throw new CommandError(LocationCode.UndefinedVariable, `Use of undefined variable: ${name}`);
  return path.length === 0 ? value : getPath(value, path.join('.'));
}

/** MongoDB truthiness in expressions: false, null, missing and numeric zero are false. */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (isNumeric(value)) return numberOf(value) !== 0;
  return true;
}

function evaluateArgs(args: unknown, doc: Document, variables: Variables): unknown[] {
  return (Array.isArray(args) ? args : [args]).map((arg) => evaluate(arg, doc, variables));
}

function comparison(test: (order: number) => boolean): Operator {
  return (args) => {
    if (args.length !== 2) throw badValue('Expression comparison takes exactly 2 arguments');
    return test(compareValues(args[0], args[1]));
  };
}

const OPERATORS: Record<string, Operator> = {
  $add: (args) => {
    let sum: unknown = 0;
    for (const arg of args) {
      if (arg === undefined || arg === null) return null;
      if (!isNumeric(arg)) throw badValue(`$add only supports numeric types in the stand-in`);
      sum = addForExpression(sum, arg);
    }
    return sum;
  },
  $ifNull: (args) => args.find((arg) => arg !== undefined && arg !== null) ?? null,
  $eq: comparison((order) => order === 0),
  $ne: comparison((order) => order !== 0),
  $lt: comparison((order) => order < 0),
  $lte: comparison((order) => order <= 0),
  $gt: comparison((order) => order > 0),
  $gte: comparison((order) => order >= 0),
  $and: (args) => args.every(isTruthy),
  $or: (args) => args.some(isTruthy),
  $not: (args) => !isTruthy(args[0]),
  $cond: (args) => (isTruthy(args[0]) ? args[1] : args[2]),
};

const NO_VARIABLES: Variables = {};

/** The literal field name of $getField/$setField/$unsetField (a string, never a path). */
function fieldNameOf(name: string, spec: unknown, doc: Document, variables: Variables): string {
  // The full form names `field`; the short form ($getField only) is the field expression itself.
  const full = isPlainDocument(spec) && 'field' in spec;
  const field = evaluate(full ? spec.field : spec, doc, variables);
  if (typeof field !== 'string')
    throw badValue(`${name} requires 'field' to evaluate to type String`);
  return field;
}

/** The object $setField/$unsetField changes: a document, or null when missing or null. */
function fieldInputOf(name: string, spec: Document, doc: Document, variables: Variables) {
  const input = evaluate(spec.input, doc, variables);
  if (input === undefined || input === null) return null;
  if (!isPlainDocument(input))
    throw badValue(`${name} requires 'input' to evaluate to type Object`);
  return input;
}

function withField(input: Document, field: string, value: unknown): Document {
  const result = { ...input };
  if (value === undefined) delete result[field];
  else setOwnField(result, field, value);
  return result;
}

/** Operators on one field named literally (dots and `$` are part of the name, not a path). */
const FIELD_OPERATORS: Record<
  string,
  (spec: unknown, doc: Document, variables: Variables) => unknown
> = {
  $getField: (spec, doc, variables) => {
    const field = fieldNameOf('$getField', spec, doc, variables);
    const input =
      isPlainDocument(spec) && 'input' in spec ? evaluate(spec.input, doc, variables) : doc;
    return isPlainDocument(input)
      ? input[field]
      : input === undefined || input === null
        ? null
        : undefined;
  },
  $setField: (spec, doc, variables) => {
    if (!isPlainDocument(spec) || !('value' in spec))
      throw badValue("$setField requires 'field', 'input' and 'value'");
    const field = fieldNameOf('$setField', spec, doc, variables);
    const input = fieldInputOf('$setField', spec, doc, variables);
    return input && withField(input, field, evaluate(spec.value, doc, variables));
  },
  $unsetField: (spec, doc, variables) => {
    if (!isPlainDocument(spec)) throw badValue("$unsetField requires 'field' and 'input'");
    const input = fieldInputOf('$unsetField', spec, doc, variables);
    return input && withField(input, fieldNameOf('$unsetField', spec, doc, variables), undefined);
  },
};

export function evaluate(
  expression: unknown,
  doc: Document,
  variables: Variables = NO_VARIABLES,
): unknown {
  if (typeof expression === 'string' && expression.startsWith('$')) {
    if (expression.startsWith('$$')) return variable(expression, doc, variables);
    return getPath(doc, expression.slice(1));
  }
  if (Array.isArray(expression)) return expression.map((item) => evaluate(item, doc, variables));
  if (!isPlainDocument(expression)) return expression;
  const keys = Object.keys(expression);
  if (keys.length === 1 && keys[0].startsWith('$')) {
    const name = keys[0];
    if (name === '$literal') return expression[name];
    if (name === '$cond' && isPlainDocument(expression.$cond)) {
      const { if: condition, then, else: otherwise } = expression.$cond;
      return evaluate(
        isTruthy(evaluate(condition, doc, variables)) ? then : otherwise,
        doc,
        variables,
      );
    }
    if (name === '$dateToString') {
      return dateToString(expression[name], (argument) => evaluate(argument, doc, variables));
    }
    const fieldOperator = FIELD_OPERATORS[name];
    if (fieldOperator) return fieldOperator(expression[name], doc, variables);
    const operator = OPERATORS[name];
    if (!operator) throw unsupported(`the expression operator ${name}`);
    return operator(evaluateArgs(expression[name], doc, variables), doc);
  }
  const result: Document = {};
  for (const key of keys) {
    const value = evaluate(expression[key], doc, variables);
    if (value !== undefined) setOwnField(result, key, value);
  }
  return result;
}
