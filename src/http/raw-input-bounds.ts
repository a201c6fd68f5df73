/**
 * The input bounds of ./input-bounds.ts, met on the raw bytes of a JSON body before `JSON.parse`
 * builds it (body-parser's `verify` hook, src/http/app.ts).
 *
 * Why: the bounds on the parsed variables made a hostile body cheap to refuse, but `JSON.parse`
 * still built it first. Measured with `bench/health-under-load.ts --profile` (10 hostile 1 MB bodies
 * in flight, production service, load average 11–14 from other work on 2 cores): `JSON.parse` took
 * 64% of the service's CPU, 26 ms per body, the walk of the parsed variables 16% and the garbage
 * collector 14%; `/health` waited behind them (p50 482 ms, p99 1.8 s). This scan builds no value
 * and stops at the first key, item, nesting or character past its bound, within the first 10 KB
 * of the shapes (70,000 keys, deep nesting, a 100,000-item list, a 1 MB string): with it,
 * the same run's `/health` had p50 7–9 ms and p99 125–129 ms (idle on that machine: p99 23–25 ms),
 * and the service was idle 44% of the time, reading bodies and collecting their buffers the rest.
 *
 * Contract: it refuses only what `inputProblem` would refuse on the parsed body, with the same
 * wording (`PAST_BOUND`); what it lets through meets `inputProblem` afterwards, which stays the
 * rule (lone surrogates, GET variables). Counted as written: a key written twice counts twice
 * (`JSON.parse` keeps the last), and where a value holds two problems the first met in the bytes
 * is named (a list's length is checked when its 1,001st item begins, after the items before it).
 * It checks the `variables` of each operation (the body, or each item of a batch) and never throws;
 * a body it cannot read as JSON is left to `JSON.parse` to refuse (one refused here may also be
 * malformed further on: it is refused for the first problem met). Strings count UTF-16
 * units as JavaScript will (an escape is one, a 4-byte UTF-8 character two). Only UTF-8 bodies are
 * scanned (`charset` given otherwise: left to the parsed walk).
 */
import { INPUT } from '../limits';
import { PAST_BOUND, type InputProblem } from './input-bounds';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const U = 0x75;

/** A list or object being read. */
interface Frame {
  list: boolean;
  /** Its items, or its keys. */
  count: number;
  /** Inside an operation's variables: its path there (null for the variables object itself). */
  path: string | null;
  /** Inside an operation's variables: how deep (the variables object 0, a variable's value 1). */
  depth: number;
  /** An operation: the body's object, or an object item of a batch (array) body. */
  operation: boolean;
  /** The key whose value comes next (objects). */
  key: string | null;
}

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

const childPath = (parent: Frame, step: string) =>
  parent.path === null ? step : `${parent.path}.${step}`;

/**
 * The end (the closing quote's index) of the string opening at `start`, or -1 when it is longer
 * than `maxUnits` UTF-16 units (read no further), or null when the body ends first.
 */
function readString(body: Buffer, start: number, maxUnits: number): number | null {
  let units = 0;
  for (let i = start + 1; i < body.length; i += 1) {
    const byte = body[i];
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH) {
      i += body[i + 1] === U ? 5 : 1;
      units += 1;
    } else if (byte >= 0xf0) {
      // A 4-byte UTF-8 character is a surrogate pair; a malformed one decodes to one U+FFFD.
      const pair =
        (body[i + 1] & 0xc0) === 0x80 &&
        (body[i + 2] & 0xc0) === 0x80 &&
        (body[i + 3] & 0xc0) === 0x80;
      units += pair ? 2 : 1;
    } else if ((byte & 0xc0) !== 0x80) {
      units += 1;
    }
    if (units > maxUnits) return -1;
  }
  return null;
}

/**
 * The end (the closing quote's index) of a string no bound applies to (a query, an operation name,
 * extensions), or null when the body ends first: what `readString` answers without a bound, found
 * by Buffer's native `indexOf` between escapes instead of byte by byte. One per body: it remembers
 * the next backslash, so the body is searched for backslashes once in all, however many strings.
 */
function unboundedStrings(body: Buffer): (start: number) => number | null {
  let nextBackslash = body.indexOf(BACKSLASH);
  return (start) => {
    let at = start + 1;
    for (;;) {
      const quote = body.indexOf(QUOTE, at);
      if (quote < 0) return null;
      if (nextBackslash >= 0 && nextBackslash < at) nextBackslash = body.indexOf(BACKSLASH, at);
      if (nextBackslash < 0 || nextBackslash > quote) return quote;
      // An escape: `\u` and its four digits, or one character, as `readString` skips them.
      at = nextBackslash + (body[nextBackslash + 1] === U ? 6 : 2);
    }
  };
}

/** The text of the string at `start..end` (quotes included), or null when it is not valid JSON. */
function decoded(body: Buffer, start: number, end: number): string | null {
  // Without an escape or a control character (which JSON refuses), the text is the bytes between
  // the quotes as UTF-8 is, as JSON.parse would read it: most keys, read without a parse.
  let plain = true;
  for (let i = start + 1; i < end && plain; i += 1)
    plain = body[i] >= 0x20 && body[i] !== BACKSLASH;
  if (plain) return body.toString('utf8', start + 1, end);
  try {
    return JSON.parse(body.toString('utf8', start, end + 1)) as string;
  } catch {
    return null;
  }
}

/**
 * The first value of an operation's variables in the JSON `body` past an input bound, or null
 * (also for anything that is not well-formed JSON, which `JSON.parse` then refuses).
 */
export function rawInputProblem(body: Buffer): InputProblem | null {
  const stack: Frame[] = [];
  const unboundedEnd = unboundedStrings(body);
  let values = 0;
  for (let i = 0; i < body.length; i += 1) {
    const byte = body[i];
    if (isSpace(byte) || byte === COLON || byte === COMMA) continue;
    const top = stack.at(-1);
    if (byte === CLOSE_OBJECT || byte === CLOSE_LIST) {
      if (stack.pop() === undefined) return null;
      continue;
    }
    // A key: a string where an object expects one.
    if (byte === QUOTE && top !== undefined && !top.list && top.key === null) {
      const checked = top.depth >= 0;
      const end = checked ? readString(body, i, INPUT.stringLength) : unboundedEnd(i);
      if (end === null) return null;
      if (end < 0) {
        const whole = unboundedEnd(i);
        const key = whole === null ? null : decoded(body, i, whole);
        return key === null ? null : PAST_BOUND.longKey(childPath(top, key));
      }
      top.count += 1;
      if (checked && top.depth > 0 && top.count > INPUT.keysPerObject) {
        return PAST_BOUND.keys(top.path ?? '');
      }
      top.key = checked || top.operation ? (decoded(body, i, end) ?? '') : '';
      i = end;
      continue;
    }
    // A value: of the key just read, an item of a list, or the whole body.
    const counted = top !== undefined && top.depth >= 0;
    const step = top === undefined ? '' : top.list ? String(top.count) : (top.key ?? '');
    if (top !== undefined) {
      if (top.list) top.count += 1;
      else top.key = null;
    }
    const path = counted ? childPath(top, step) : '';
    if (counted && top.list && top.depth > 0 && top.count > INPUT.itemsPerList) {
      return PAST_BOUND.items(top.path ?? '');
    }
    if (counted && ++values > INPUT.values) return PAST_BOUND.values(path);
    if (byte === OPEN_OBJECT || byte === OPEN_LIST) {
      const list = byte === OPEN_LIST;
      const variables = top?.operation === true && step === 'variables' && !list;
      const depth = counted ? top.depth + 1 : variables ? 0 : -1;
      if (variables) values = 0; // counted per operation, as `inputProblem` counts
      if (counted && depth > INPUT.depth) return PAST_BOUND.deep(path);
      stack.push({
        list,
        count: 0,
        path: counted ? path : null,
        depth,
        operation: !list && (top === undefined || (top.list && stack.length === 1)),
        key: null,
      });
      continue;
    }
    if (byte === QUOTE) {
      const end = counted ? readString(body, i, INPUT.stringLength) : unboundedEnd(i);
      if (end === null) return null;
      if (end < 0) return PAST_BOUND.longString(path);
      i = end;
      continue;
    }
    // A number, true, false or null: to the next delimiter.
    while (i + 1 < body.length && !isDelimiter(body[i + 1])) i += 1;
  }
  return null;
}

const isDelimiter = (byte: number) =>
  byte === COMMA ||
  byte === CLOSE_OBJECT ||
  byte === CLOSE_LIST ||
  byte === COLON ||
  byte === QUOTE ||
  isSpace(byte);
