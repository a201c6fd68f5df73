/**
 * The variables of a request, checked on the parsed JSON before GraphQL sees them: bounded in size
 * (src/limits.ts `INPUT`) and well-formed Unicode.
 *
 * Why before graphql-js: it coerces variables synchronously and prints the whole offending value
 * into each of up to 51 errors, so one 1 MB `$input` of 70,000 unknown keys held the event loop for
 * 21 s (and `/health` with it) and answered 51 MB. This walk costs one visit per value and stops at
 * the first value past a bound, so any body (unknown keys, a 100,000-item list, deep nesting, a
 * 1 MB string) is refused in about the time `JSON.parse` took to read it. The bounds admit
 * everything the schema accepts (test/limits.test.ts checks them against its argument types);
 * what passes them still meets graphql-js's own coercion, whose errors are then small.
 *
 * Lone surrogates: JSON escapes can produce UTF-16 halves without their pair; MongoDB stores them as
 * U+FFFD, so the stored text would differ from what was acknowledged (a key that can never match
 * again). They are refused naming the variable's path, keys included.
 *
 * Iterative: `JSON.parse` reads arrays nested far deeper than a recursive walk has stack for.
 */
import { INPUT } from '../limits';

export interface InputProblem {
  /** The path of the value, e.g. `input.name` or `inputs.3`; the variable's name at the top. */
  field: string;
  message: string;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Paths are cut in messages: a path is keys, and keys may be long. */
const SHOWN_PATH = 200;

const shown = (path: string) =>
  path.length <= SHOWN_PATH ? path : `${path.slice(0, SHOWN_PATH)}…`;

/** A value to visit: where it is, how deep, and the key that leads to it (checked first). */
type Pending = [value: unknown, path: string, depth: number, key: string | null];

function problem(path: string, message: (shownPath: string) => string): InputProblem {
  const field = shown(path);
  return { field, message: message(`\`${field}\``) };
}

const malformed = (path: string) =>
  problem(path, (at) => `${at} is not well-formed Unicode (it holds half of a surrogate pair)`);

/**
 * The refusal of each bound, naming the value's path: one wording, whether the bound was met on
 * the parsed variables (`inputProblem`) or on the raw body (./raw-input-bounds.ts). It says which
 * bound was passed, not by how much: the raw scan stops at the first item, key or character past
 * it instead of reading the rest of a hostile value to count it.
 */
export const PAST_BOUND = {
  longKey: (path: string) => problem(path, (at) => `${at} is a key longer than any field name`),
  values: (path: string) =>
    problem(
      path,
      () =>
        `The variables hold more than ${INPUT.values} values in all (1,000 users with every field set hold 5,001)`,
    ),
  longString: (path: string) =>
    problem(
      path,
      (at) =>
        `${at} is longer than ${INPUT.stringLength} characters, the most a string argument holds`,
    ),
  deep: (path: string) =>
    problem(
      path,
      (at) =>
        `${at} nests lists and objects more than ${INPUT.depth} deep, deeper than any argument`,
    ),
  items: (path: string) =>
    problem(
      path,
      (at) => `${at} holds more than ${INPUT.itemsPerList} items, the most a list argument holds`,
    ),
  keys: (path: string) =>
    problem(
      path,
      (at) =>
        `${at} holds more than ${INPUT.keysPerObject} keys, the most fields an input object has`,
    ),
};

/** Queues the entries of an object, in order, one level deeper than `depth`. */
function queueEntries(pending: Pending[], value: object, path: string | null, depth: number) {
  const keys = Object.keys(value);
  for (let i = keys.length - 1; i >= 0; i -= 1) {
    const key = keys[i];
    const child = (value as Record<string, unknown>)[key];
    pending.push([child, path === null ? key : `${path}.${key}`, depth + 1, key]);
  }
}

/** The first value of `variables` past a bound or not well-formed Unicode, else null. */
export function inputProblem(variables: unknown): InputProblem | null {
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) return null;
  let values = 0;
  // Depth first and in order, keys before their values: the problem named is the first one a
  // reader of the JSON meets. A variable's value is at depth 1.
  const pending: Pending[] = [];
  queueEntries(pending, variables, null, 0);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path, depth, key] = next;
    if (key !== null) {
      if (key.length > INPUT.stringLength) return PAST_BOUND.longKey(path);
      if (LONE_SURROGATE.test(key)) return malformed(path);
    }
    values += 1;
    if (values > INPUT.values) return PAST_BOUND.values(path);
    if (typeof value === 'string') {
      if (value.length > INPUT.stringLength) return PAST_BOUND.longString(path);
      if (LONE_SURROGATE.test(value)) return malformed(path);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > INPUT.depth) return PAST_BOUND.deep(path);
    if (Array.isArray(value)) {
      if (value.length > INPUT.itemsPerList) return PAST_BOUND.items(path);
      for (let i = value.length - 1; i >= 0; i -= 1) {
        pending.push([value[i], `${path}.${i}`, depth + 1, null]);
      }
      continue;
    }
    const keys = Object.keys(value).length;
    if (keys > INPUT.keysPerObject) return PAST_BOUND.keys(path);
    queueEntries(pending, value, path, depth);
  }
  return null;
}
