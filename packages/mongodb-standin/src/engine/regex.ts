/**
 * MongoDB regular expressions (PCRE2 syntax and options) translated to JavaScript RegExps with
 * the same meaning, or refused. mongod runs PCRE2 in UTF mode without Unicode properties for
 * `\d \w \s \b`, with "\n" as the only newline; JavaScript differs in ways that would silently
 * change answers, so every token is rewritten rather than passed through:
 * - `.` stops only at "\n" (JavaScript also stops at "\r", U+2028, U+2029);
 * - `$` without `m` also matches before a final "\n"; `^`/`$` with `m` know only "\n";
 * - `\s` is the six ASCII spaces (JavaScript adds Unicode spaces); `\A \z \Z \Q…\E \x{…} \e`
 *   and `(?#…)` are rewritten; an escaped punctuation character is a literal;
 * - option `x` drops whitespace and `#` comments outside classes; `i m s` as in PCRE; `u` is
 *   accepted and changes nothing (UTF is always on).
 * Constructs JavaScript cannot express (possessive quantifiers, atomic groups, inline options,
 * recursion, conditionals, `\G \K \R \h \v \X`, POSIX classes, …) are refused by name. A pattern
 * PCRE2 rejects is refused with mongod's code 51091, an unknown option with 51108.
 *
 * A match runs within a budget (matchWithinBudget): PCRE2 stops a match at its match limit, V8's
 * RegExp never does, and the server runs one command at a time, so one pattern that backtracks
 * catastrophically would hold every client.
 */
import vm from 'node:vm';
import { BSONRegExp } from 'bson';
import { CommandError, LocationCode, unsupported } from './errors';

export type RegexValue = BSONRegExp | RegExp;

const REGEX_OPTIONS = new Set(['i', 'm', 's', 'x', 'u']);
/** PCRE2's whitespace for `\s` and the `x` option: space, \t, \n, \v, \f, \r. */
const PCRE_SPACES = '\\t\\n\\v\\f\\r ';
const WORD_OR_DIGIT = /[A-Za-z0-9]/;
/** Escapes that mean the same in PCRE2 (non-UCP) and in a JavaScript `u` RegExp. */
const SAME_ESCAPES = new Set(['d', 'D', 'w', 'W', 'b', 'B', 't', 'n', 'r', 'f', 'a']);
const REFUSED_ESCAPES: Record<string, string> = {
  G: '\\G',
  K: '\\K',
  R: '\\R',
  X: '\\X',
  C: '\\C',
  h: '\\h',
  H: '\\H',
  v: '\\v (vertical space)',
  V: '\\V',
  N: '\\N',
  g: '\\g back references',
  k: '\\k back references',
  o: '\\o octal escapes',
  p: '\\p Unicode properties',
  P: '\\P Unicode properties',
  E: 'a \\E without \\Q',
};

export function isRegexValue(value: unknown): value is RegexValue {
  return value instanceof BSONRegExp || value instanceof RegExp;
}

/** Pattern and options of a stored or sent regex (a JavaScript RegExp's flags mapped to PCRE). */
export function regexParts(value: RegexValue): { pattern: string; options: string } {
  if (value instanceof BSONRegExp) return { pattern: value.pattern, options: value.options };
  return { pattern: value.source, options: value.flags.replace(/[gyd]/g, '') };
}

function invalid(pattern: string, reason: string): CommandError {
  return new CommandError(
    LocationCode.InvalidRegex,
    `Regular expression is invalid: ${reason} (in /${pattern}/)`,
  );
}

function hex(codePoint: number): string {
  return `\\u{${codePoint.toString(16)}}`;
}

/** A character as a literal in a JavaScript `u` RegExp, in or outside a class. */
function literal(char: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(char) ? `\\${char}` : char;
}

/** `{n}`, `{n,}` or `{n,m}` starting at `at`: its length, or 0 when `{` is a literal there. */
function quantifierLength(pattern: string, at: number): number {
  const match = /^\{\d+(,\d*)?\}/.exec(pattern.slice(at));
  return match ? match[0].length : 0;
}

/** A translation under way: the PCRE2 pattern, how far it is read, and the JavaScript written. */
interface Translation {
  readonly pattern: string;
  readonly multiline: boolean;
  readonly dotAll: boolean;
  readonly extended: boolean;
  out: string;
  /** The next character of `pattern` to read. */
  i: number;
  inClass: boolean;
}

function refuse(t: Translation, what: string): CommandError {
  return unsupported(`the PCRE construct ${what} in /${t.pattern}/`);
}

/** `\Q…\E`: everything up to `\E` (or the end) as literals. */
function quoted(t: Translation): void {
  const end = t.pattern.indexOf('\\E', t.i);
  const text = t.pattern.slice(t.i, end === -1 ? undefined : end);
  t.out += [...text].map(literal).join('');
  t.i = end === -1 ? t.pattern.length : end + 2;
}

/** `\x` followed by `{hex…}` or up to two hex digits (none: NUL). */
function hexEscape(t: Translation): void {
  const braced = /^\{([0-9A-Fa-f]+)\}/.exec(t.pattern.slice(t.i));
  const short = /^[0-9A-Fa-f]{0,2}/.exec(t.pattern.slice(t.i))![0];
  const digits = braced ? braced[1] : short;
  t.out += hex(digits.length === 0 ? 0 : parseInt(digits, 16));
  t.i += braced ? braced[0].length : short.length;
}

/** A backslash and what follows it, in or outside a class. */
function escape(t: Translation): void {
  const { pattern, inClass } = t;
  const next = pattern[t.i + 1];
  if (next === undefined) throw invalid(pattern, '\\ at end of pattern');
  t.i += 2;
  if (next === 'Q') quoted(t);
  else if (next === 's') t.out += inClass ? PCRE_SPACES : `[${PCRE_SPACES}]`;
  else if (next === 'S') {
    if (inClass) throw refuse(t, '\\S inside a character class');
    t.out += `[^${PCRE_SPACES}]`;
  } else if (next === 'A' && !inClass) t.out += '(?<![\\s\\S])';
  else if (next === 'z' && !inClass) t.out += '(?![\\s\\S])';
  else if (next === 'Z' && !inClass) t.out += '(?=\\n?(?![\\s\\S]))';
  else if (next === 'e') t.out += '\\x1b';
  else if (next === 'x') hexEscape(t);
  else if (next === 'c' && /[A-Za-z]/.test(pattern[t.i] ?? '')) t.out += `\\c${pattern[t.i++]}`;
  else if (next === '0' && !/[0-7]/.test(pattern[t.i] ?? '')) t.out += '\\0';
  else if (/[1-9]/.test(next) && !inClass && !/[0-9]/.test(pattern[t.i] ?? ''))
    t.out += `\\${next}`;
  else if (/[0-9]/.test(next)) throw refuse(t, 'octal escapes and back references above \\9');
  else if (SAME_ESCAPES.has(next)) {
    if (next === 'b' && inClass) t.out += '\\x08';
    else if (next === 'a') t.out += '\\x07';
    else t.out += `\\${next}`;
  } else if (REFUSED_ESCAPES[next]) throw refuse(t, REFUSED_ESCAPES[next]);
  else if (WORD_OR_DIGIT.test(next)) throw invalid(pattern, `unrecognized escape \\${next}`);
  else {
    const codePoint = pattern.codePointAt(t.i - 1)!;
    if (codePoint > 0xffff) t.i++;
    t.out += hex(codePoint);
  }
}

/** A character inside `[…]`: a literal, except the `]` that closes the class. */
function classCharacter(t: Translation, char: string): void {
  if (char === '[' && t.pattern[t.i + 1] === ':') throw refuse(t, 'POSIX character classes [:…:]');
  if (char === ']') t.inClass = false;
  t.out += char === '[' ? '\\[' : char;
  t.i++;
}

/** `[` or `[^`, and a `]` right after it, which is a literal in PCRE. */
function openClass(t: Translation): void {
  t.inClass = true;
  t.out += '[';
  t.i++;
  if (t.pattern[t.i] === '^') t.out += t.pattern[t.i++];
  if (t.pattern[t.i] === ']') {
    t.out += '\\]';
    t.i++;
  }
}

/** `(`: a `(?#…)` comment is dropped, `(?P<name>` renamed, other `(?` forms JavaScript lacks refused. */
function openGroup(t: Translation): void {
  const rest = t.pattern.slice(t.i + 1);
  if (rest.startsWith('?#')) {
    const end = t.pattern.indexOf(')', t.i);
    if (end === -1) throw invalid(t.pattern, 'missing ) after (?# comment');
    t.i = end + 1;
    return;
  }
  if (rest.startsWith('?P<')) {
    t.out += '(?<';
    t.i += 4;
    return;
  }
  if (rest.startsWith('?') && !/^\?(:|=|!|<=|<!|<[A-Za-z_])/.test(rest)) {
    throw refuse(
      t,
      `(${rest.slice(0, 3)}… (atomic groups, inline options, recursion, conditionals)`,
    );
  }
  t.out += '(';
  t.i++;
}

/** `{`: a quantifier `{n}`, `{n,}`, `{n,m}` (never possessive), or else a literal. */
function brace(t: Translation): void {
  const length = quantifierLength(t.pattern, t.i);
  if (length === 0) {
    t.out += '\\{';
    t.i++;
    return;
  }
  t.out += t.pattern.slice(t.i, t.i + length);
  t.i += length;
  if (t.pattern[t.i] === '+') throw refuse(t, 'possessive quantifiers');
}

/** A character outside a class (with option `x`, whitespace and `#` comments are gone already). */
function outsideClass(t: Translation, char: string): void {
  switch (char) {
    case '[':
      return openClass(t);
    case '(':
      return openGroup(t);
    case '{':
      return brace(t);
    case '.':
      t.out += t.dotAll ? '[\\s\\S]' : '[^\\n]';
      break;
    case '^':
      t.out += t.multiline ? '(?:(?<![\\s\\S])|(?<=\\n)(?=[\\s\\S]))' : '(?<![\\s\\S])';
      break;
    case '$':
      t.out += t.multiline ? '(?=\\n|(?![\\s\\S]))' : '(?=\\n?(?![\\s\\S]))';
      break;
    case '}':
    case ']':
      t.out += `\\${char}`;
      break;
    case '*':
    case '+':
    case '?':
      t.out += char;
      if (t.pattern[t.i + 1] === '+') throw refuse(t, 'possessive quantifiers');
      break;
    default: {
      const text = String.fromCodePoint(t.pattern.codePointAt(t.i)!);
      t.out += text;
      t.i += text.length;
      return;
    }
  }
  t.i++;
}

/**
 * What bounds the work of a backtracking match: quantifiers on one character (a literal, an
 * escape, a class, `.`), each trying at most one more way than the subject has characters; the
 * alternatives of every group, tried one after the other; and the pattern's length. A
 * quantifier on a group, or a back reference, has no such bound (`^(a+)+$` tries about 2^n ways).
 * So one test of a subject of n characters takes at most
 * `alternatives × (n + 1)^(quantifiers + 1) × (length + quantifiers × n + 1)` steps: each start
 * position (n + 1) times each way of choosing (alternatives × (n + 1)^quantifiers) times the
 * longest way (the pattern, and each quantifier consuming the subject).
 */
export interface PatternShape {
  /** a quantifier on a group, or a back reference */
  readonly unbounded: boolean;
  readonly quantifiers: number;
  readonly alternatives: number;
  readonly length: number;
}

/** Reads a pattern's shape token by token, as translate() reads it. */
class ShapeReader {
  private last: 'atom' | 'group' | 'quantifier' | 'none' = 'none';
  private unbounded = false;
  private quantifiers = 0;
  private alternatives = 1;
  /** the branch count of each open group, the whole pattern first */
  private readonly branches = [1];

  constructor(private readonly length: number) {}

  atom(): void {
    this.last = 'atom';
  }

  /** One token outside a class, `pattern.slice(start, start + length)` as translate() read it. */
  token(pattern: string, start: number, length: number): void {
    const char = pattern[start];
    const quantifier = '*+?'.includes(char) || (char === '{' && length > 1);
    if (quantifier) {
      // `?` after a quantifier makes it lazy: still one quantifier
      if (char === '?' && this.last === 'quantifier') return;
      if (this.last === 'group') this.unbounded = true;
      this.quantifiers++;
      this.last = 'quantifier';
    } else if (char === '(') {
      if (pattern.startsWith('(?#', start)) return; // a comment: the quantifier after it applies before it
      this.branches.push(1);
      this.last = 'none';
    } else if (char === ')') {
      this.alternatives *= this.branches.length > 1 ? this.branches.pop()! : 1;
      this.last = 'group';
    } else if (char === '|') {
      this.branches[this.branches.length - 1]++;
      this.last = 'none';
    } else if (char === '[') {
      this.last = 'none'; // the class is an atom once it closes
    } else {
      if (char === '\\' && /[1-9]/.test(pattern[start + 1] ?? '')) this.unbounded = true;
      this.last = 'atom';
    }
  }

  done(): PatternShape {
    return {
      unbounded: this.unbounded,
      quantifiers: this.quantifiers,
      alternatives: this.alternatives * this.branches[0],
      length: this.length,
    };
  }
}

/** The most steps of one test against `length` characters (PatternShape), Infinity when unknown. */
function stepBound(shape: PatternShape, length: number): number {
  if (shape.unbounded) return Infinity;
  const ways = shape.alternatives * (length + 1) ** (shape.quantifiers + 1);
  return ways * (shape.length + shape.quantifiers * length + 1);
}

/** Rewrites one PCRE2 pattern into JavaScript `u`-mode syntax (see the header), and reads its shape. */
function translate(pattern: string, options: string): { source: string; shape: PatternShape } {
  const t: Translation = {
    pattern,
    multiline: options.includes('m'),
    dotAll: options.includes('s'),
    extended: options.includes('x'),
    out: '',
    i: 0,
    inClass: false,
  };
  const shape = new ShapeReader(pattern.length);
  while (t.i < pattern.length) {
    const char = pattern[t.i];
    const start = t.i;
    const wasInClass = t.inClass;
    if (char === '\\') escape(t);
    else if (t.inClass) classCharacter(t, char);
    else if (t.extended && /[ \t\n\v\f\r]/.test(char)) t.i++;
    else if (t.extended && char === '#') {
      const end = pattern.indexOf('\n', t.i);
      t.i = end === -1 ? pattern.length : end + 1;
      continue;
    } else outsideClass(t, char);
    if (wasInClass) {
      if (!t.inClass) shape.atom(); // the class closed: one character, as a literal is
    } else if (!/[ \t\n\v\f\r]/.test(char) || !t.extended) {
      shape.token(pattern, start, t.i - start);
    }
  }
  if (t.inClass) throw invalid(pattern, 'missing terminating ] for character class');
  return { source: t.out, shape: shape.done() };
}

/** A MongoDB regex as it runs: the JavaScript RegExp with its meaning, and the pattern's shape. */
export interface CompiledRegex {
  readonly regex: RegExp;
  readonly shape: PatternShape;
}

/** Compiles a MongoDB regex (pattern + options string) to a JavaScript RegExp with its meaning. */
export function compileRegex(pattern: string, options: string): CompiledRegex {
  for (const option of options) {
    if (!REGEX_OPTIONS.has(option))
      throw new CommandError(
        LocationCode.InvalidRegexOption,
        `invalid flag in regex options: ${option}`,
      );
  }
  const { source, shape } = translate(pattern, options);
  try {
    return { regex: new RegExp(source, options.includes('i') ? 'iu' : 'u'), shape };
  } catch (error) {
    throw invalid(pattern, (error as Error).message);
  }
}

/**
 * How long one match may run, in milliseconds. mongod's PCRE2 stops a match after 10,000,000
 * steps of backtracking (its default match limit); this is the stand-in's bound in its place,
 * and a client waiting behind a match that runs past it waits less than a tenth of a second.
 * A match linear in its subject finishes within it up to megabytes (over 8 MB, V8 took 5 ms for
 * `!$`, 13 ms for `^[ab]*!$`, but 54 ms for the case-insensitive `ba!`).
 */
export const REGEX_MATCH_BUDGET_MS = 50;

/** What the budgeted script reads: set for each match, cleared after it so no subject is kept. */
const matchInput: { regex: RegExp | null; subject: string } = { regex: null, subject: '' };
const matchContext = vm.createContext(matchInput);
const matchScript = new vm.Script('regex.test(subject)');

/**
 * Tests whose step bound is at most this run as they are: a few milliseconds at most (V8 took
 * 55 ms for the 2^21 steps of `^(a+)+$` against 20 `a`s and a `!`). The budget's watchdog starts
 * a thread per test (177 µs a test where a plain one took 0.24), so only tests that could run
 * long pay for it.
 */
const UNBUDGETED_STEP_BOUND = 200_000;

/** Whether a test of `compiled` against `length` characters could run long enough to need the budget. */
export function needsBudget(compiled: CompiledRegex, length: number): boolean {
  return stepBound(compiled.shape, length) > UNBUDGETED_STEP_BOUND;
}

/**
 * `regex.test(subject)`, stopped after REGEX_MATCH_BUDGET_MS unless its step bound says it ends
 * sooner: the vm module's timeout has V8 terminate the script from a watchdog thread, which a
 * RegExp's backtracking checks for. A match stopped so fails its command with the code and
 * message mongod gives when PCRE2's match limit stops one (51156, as its `$regexMatch` reports
 * it; a mongod `$regex` query takes such a match for no match, which the stand-in cannot know
 * to be mongod's answer, its budget not being PCRE2's, so it refuses instead of guessing).
 */
export function matchWithinBudget(compiled: CompiledRegex, subject: string): boolean {
  if (!needsBudget(compiled, subject.length)) return compiled.regex.test(subject);
  matchInput.regex = compiled.regex;
  matchInput.subject = subject;
  try {
    return matchScript.runInContext(matchContext, { timeout: REGEX_MATCH_BUDGET_MS }) === true;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
    throw new CommandError(
      LocationCode.RegexMatchFailed,
      `Error occurred while executing the regular expression in $regex. Result code: match limit exceeded (the MongoDB stand-in stops a match after ${REGEX_MATCH_BUDGET_MS} ms)`,
    );
  } finally {
    matchInput.regex = null;
    matchInput.subject = '';
  }
}
