/**
 * Query filters compiled to predicates, with MongoDB's matching rules: a field predicate holds
 * when any value reached through the path (arrays fan out, and an array's elements are tried as
 * well as the array itself) satisfies it; range operators only compare within one BSON type
 * bracket (numbers with numbers, strings with strings); `{ a: null }` also matches a missing
 * field. A regex (a BSON regex value, or `$regex`/`$options`) matches strings by pattern, with
 * PCRE's meaning (engine/regex.ts); `$eq` with a regex compares regexes, as in mongod. Operators
 * outside the supported set are refused at compile time, so a filter either runs with MongoDB's
 * meaning or fails loudly.
 */
import { BSONRegExp, BSONSymbol, Double, Int32, Long } from 'bson';
import { badValue, CommandError, LocationCode, unsupported } from './errors';
import { evaluate, isTruthy, Variables } from './expressions';
import { valuesAtPath } from './paths';
import { compileRegex, isRegexValue, matchWithinBudget, RegexValue, regexParts } from './regex';
import { compareValues, Document, isPlainDocument, typeRank } from './values';

export type Predicate = (doc: Document) => boolean;
type ValueTest = (value: unknown) => boolean;

const TYPE_ALIASES: Record<string, number> = {
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
};

/** BSON type number of a stored value (as `$type` sees it). */
export function bsonTypeNumber(value: unknown): number {
  if (value instanceof Int32) return 16;
  if (value instanceof Long) return 18;
  if (value instanceof Double || typeof value === 'number') return 1;
  if (value === null) return 10;
  if (Array.isArray(value)) return 4;
  if (value !== undefined && isPlainDocument(value)) return 3;
  const byRank: Record<number, number> = {
    1: -1,
    3: 19,
    4: 2,
    7: 5,
    8: 7,
    9: 8,
    10: 9,
    11: 17,
    12: 11,
    100: 127,
  };
  return byRank[typeRank(value)] ?? -2;
}

/** mongod's name of a stored value's BSON type (`string`, `bool`, `date`, ...), as its messages give it. */
export function bsonTypeName(value: unknown): string {
  const number = bsonTypeNumber(value);
  return Object.keys(TYPE_ALIASES).find((name) => TYPE_ALIASES[name] === number) ?? 'unknown';
}

function typeTest(spec: unknown): ValueTest {
  const specs = Array.isArray(spec) ? spec : [spec];
  const wanted = new Set<number>();
  let anyNumber = false;
  for (const item of specs) {
    if (item === 'number') anyNumber = true;
    else if (typeof item === 'string' && item in TYPE_ALIASES) wanted.add(TYPE_ALIASES[item]);
    else if (typeof item === 'number' || item instanceof Int32 || item instanceof Double)
      wanted.add(Number(item.valueOf()));
    else throw badValue(`Unknown type name alias: ${String(item)}`);
  }
  return (value) =>
    value !== undefined &&
    (wanted.has(bsonTypeNumber(value)) || (anyNumber && typeRank(value) === 3));
}

function equalsTest(expected: unknown): ValueTest {
  return (value) => compareValues(value, expected) === 0;
}

/**
 * A regex tested against strings (and symbols); a stored regex also matches when it is the
 * same regex, as in mongod.
 */
function regexTest(regex: RegexValue, options?: string): ValueTest {
  const parts = regexParts(regex);
  const compiled = compileRegex(parts.pattern, options ?? parts.options);
  return (value) => {
    if (typeof value === 'string') return matchWithinBudget(compiled, value);
    if (value instanceof BSONSymbol) return matchWithinBudget(compiled, value.value);
    return isRegexValue(value) && compareValues(value, regex) === 0;
  };
}

/** What a bare value or an `$in` element means: a regex matches by pattern, anything else by equality. */
function valueTest(operator: string, expected: unknown): ValueTest {
  if (isRegexValue(expected)) return regexTest(expected);
  if (isOperatorDocument(expected)) throw badValue(`cannot nest $ under ${operator}`);
  return equalsTest(expected);
}

/** `$regex` with its `$options` (a string, or a regex whose own options `$options` must not repeat). */
function regexOperatorTest(regex: unknown, options: unknown): ValueTest {
  if (options !== undefined && typeof options !== 'string')
    throw badValue('$options has to be a string');
  if (typeof regex === 'string') return regexTest(new BSONRegExp(regex), options ?? '');
  if (!isRegexValue(regex)) throw badValue('$regex has to be a string');
  if (options !== undefined && regexParts(regex).options !== '') {
    throw new CommandError(
      LocationCode.RegexOptionsTwice,
      'options set in both $regex and $options',
    );
  }
  return regexTest(regex, options);
}

function rangeTest(expected: unknown, accept: (order: number) => boolean): ValueTest {
  const rank = typeRank(expected);
  return (value) => {
    if (value === undefined) return rank === 2 && accept(0);
    return typeRank(value) === rank && accept(compareValues(value, expected));
  };
}

/** Applies a value test to a field: to each reached value, and to each element of reached arrays. */
function anyValue(paths: string[], test: ValueTest): Predicate {
  return (doc) => {
    for (const value of valuesAtPath(doc, paths)) {
      if (test(value)) return true;
      if (Array.isArray(value) && value.some(test)) return true;
    }
    return false;
  };
}

function compileOperator(path: string[], operator: string, operand: unknown): Predicate {
  switch (operator) {
    case '$eq':
      return anyValue(path, equalsTest(operand));
    case '$ne':
      if (isRegexValue(operand)) throw badValue("Can't have regex as arg to $ne.");
      return negation(anyValue(path, equalsTest(operand)));
    case '$gt':
      return anyValue(
        path,
        rangeTest(operand, (order) => order > 0),
      );
    case '$gte':
      return anyValue(
        path,
        rangeTest(operand, (order) => order >= 0),
      );
    case '$lt':
      return anyValue(
        path,
        rangeTest(operand, (order) => order < 0),
      );
    case '$lte':
      return anyValue(
        path,
        rangeTest(operand, (order) => order <= 0),
      );
    case '$in':
    case '$nin': {
      if (!Array.isArray(operand)) throw badValue(`${operator} needs an array`);
      const tests = operand.map((element) => valueTest(operator, element));
      const inList = anyValue(path, (value) => tests.some((test) => test(value)));
      return operator === '$in' ? inList : negation(inList);
    }
    case '$exists': {
      const present: Predicate = (doc) => valuesAtPath(doc, path).some((v) => v !== undefined);
      return isTruthy(operand) ? present : negation(present);
    }
    case '$type':
      return anyValue(path, typeTest(operand));
    case '$not':
      if (isRegexValue(operand)) return negation(anyValue(path, regexTest(operand)));
      if (!isPlainDocument(operand)) throw badValue('$not needs a regex or a document');
      return negation(compileField(path, operand));
    default:
      if (MONGOD_FIELD_OPERATORS.has(operator)) throw unsupported(`the query operator ${operator}`);
      throw badValue(`unknown operator: ${operator}`);
  }
}

/**
 * mongod's query operators: one the stand-in lacks is refused as unsupported; any other `$` name
 * is mongod's own BadValue, raised while the filter is compiled, so whatever the data.
 */
const MONGOD_FIELD_OPERATORS = new Set(
  (
    '$eq $ne $gt $gte $lt $lte $in $nin $exists $type $not $regex $options $elemMatch $size ' +
    '$all $mod $bitsAllSet $bitsAnySet $bitsAllClear $bitsAnyClear $geoWithin $geoIntersects ' +
    '$near $nearSphere $within $maxDistance $minDistance'
  ).split(' '),
);
const MONGOD_TOP_LEVEL_OPERATORS = new Set(
  '$text $where $jsonSchema $sampleRate $alwaysTrue $alwaysFalse'.split(' '),
);

function negation(predicate: Predicate): Predicate {
  return (doc) => !predicate(doc);
}

function isOperatorDocument(value: unknown): value is Document {
  if (!isPlainDocument(value)) return false;
  const first = Object.keys(value)[0];
  return first !== undefined && first.startsWith('$');
}

function compileField(path: string[], condition: unknown): Predicate {
  if (!isOperatorDocument(condition)) {
    return anyValue(path, isRegexValue(condition) ? regexTest(condition) : equalsTest(condition));
  }
  const predicates: Predicate[] = [];
  for (const [operator, operand] of Object.entries(condition)) {
    if (operator === '$options') {
      if (!('$regex' in condition)) throw badValue('$options needs a $regex');
    } else if (operator === '$regex') {
      predicates.push(anyValue(path, regexOperatorTest(operand, condition.$options)));
    } else predicates.push(compileOperator(path, operator, operand));
  }
  return allOf(predicates);
}

function allOf(predicates: Predicate[]): Predicate {
  if (predicates.length === 1) return predicates[0];
  return (doc) => predicates.every((predicate) => predicate(doc));
}

function compileClauses(operator: string, clauses: unknown, variables: Variables): Predicate[] {
  if (!Array.isArray(clauses) || clauses.length === 0 || !clauses.every(isPlainDocument)) {
    throw badValue(`${operator} must be a nonempty array`);
  }
  return clauses.map((clause) => compileFilter(clause, variables));
}

/** A filter as a predicate; `variables` (a command's `let`, `$$NOW`) serve its `$expr`. */
export function compileFilter(
  filter: Document | undefined | null,
  variables: Variables = {},
): Predicate {
  if (!filter) return () => true;
  const predicates: Predicate[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '$and') predicates.push(allOf(compileClauses(key, condition, variables)));
    else if (key === '$or') {
      const clauses = compileClauses(key, condition, variables);
      predicates.push((doc) => clauses.some((clause) => clause(doc)));
    } else if (key === '$nor') {
      const clauses = compileClauses(key, condition, variables);
      predicates.push((doc) => !clauses.some((clause) => clause(doc)));
    } else if (key === '$expr')
      predicates.push((doc) => isTruthy(evaluate(condition, doc, variables)));
    else if (key === '$comment') continue;
    else if (MONGOD_TOP_LEVEL_OPERATORS.has(key))
      throw unsupported(`the top-level query operator ${key}`);
    else if (key.startsWith('$'))
      throw badValue(
        `unknown top level operator: ${key}. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.`,
      );
    else predicates.push(compileField(key.split('.'), condition));
  }
  if (predicates.length === 0) return () => true;
  return allOf(predicates);
}

/**
 * Fields a filter pins to one value (`{a: 1}`, `{a: {$eq: 1}}`, inside `$and`): the seed of an
 * upserted document and the key for index lookups.
 */
export function equalityFields(filter: Document | undefined | null): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  if (!filter) return fields;
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(condition)) {
      for (const clause of condition) {
        if (isPlainDocument(clause)) for (const [k, v] of equalityFields(clause)) fields.set(k, v);
      }
    } else if (!key.startsWith('$')) {
      if (!isOperatorDocument(condition)) {
        if (!isRegexValue(condition)) fields.set(key, condition);
      } else if ('$eq' in condition) fields.set(key, condition.$eq);
    }
  }
  return fields;
}
