/**
 * Aggregation expressions, as far as `$expr` filters, `$group` and `$project` in this service
 * need them: field paths ('$a.b'), `$$ROOT`, literals, `$literal`, `$add`, `$ifNull`, the six
 * comparisons (full BSON order across types, as in aggregation), `$and`, `$or`, `$not`, `$cond`.
 * Anything else is refused by name rather than evaluated wrongly.
 */
import { badValue, unsupported } from './errors';
import { addForExpression } from './numbers';
import { getPath } from './paths';
import { compareValues, Document, isNumeric, isPlainDocument, numberOf } from './values';

type Operator = (args: unknown[], doc: Document) => unknown;

/** MongoDB truthiness in expressions: false, null, missing and numeric zero are false. */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (isNumeric(value)) return numberOf(value) !== 0;
  return true;
}

function evaluateArgs(args: unknown, doc: Document): unknown[] {
  return (Array.isArray(args) ? args : [args]).map((arg) => evaluate(arg, doc));
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

export function evaluate(expression: unknown, doc: Document): unknown {
  if (typeof expression === 'string' && expression.startsWith('$')) {
    if (expression === '$$ROOT' || expression === '$$CURRENT') return doc;
    if (expression.startsWith('$$')) throw unsupported(`the variable ${expression}`);
    return getPath(doc, expression.slice(1));
  }
  if (Array.isArray(expression)) return expression.map((item) => evaluate(item, doc));
  if (!isPlainDocument(expression)) return expression;
  const keys = Object.keys(expression);
  if (keys.length === 1 && keys[0].startsWith('$')) {
    const name = keys[0];
    if (name === '$literal') return expression[name];
    if (name === '$cond' && isPlainDocument(expression.$cond)) {
      const { if: condition, then, else: otherwise } = expression.$cond;
      return evaluate(isTruthy(evaluate(condition, doc)) ? then : otherwise, doc);
    }
    const operator = OPERATORS[name];
    if (!operator) throw unsupported(`the expression operator ${name}`);
    return operator(evaluateArgs(expression[name], doc), doc);
  }
  const result: Document = {};
  for (const key of keys) result[key] = evaluate(expression[key], doc);
  return result;
}
