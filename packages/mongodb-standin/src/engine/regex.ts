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
 */
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

/** Rewrites one PCRE2 pattern into JavaScript `u`-mode syntax (see the header). */
function translate(pattern: string, options: string): string {
  const t: Translation = {
    pattern,
    multiline: options.includes('m'),
    dotAll: options.includes('s'),
    extended: options.includes('x'),
    out: '',
    i: 0,
    inClass: false,
  };
  while (t.i < pattern.length) {
    const char = pattern[t.i];
    if (char === '\\') escape(t);
    else if (t.inClass) classCharacter(t, char);
    else if (t.extended && /[ \t\n\v\f\r]/.test(char)) t.i++;
    else if (t.extended && char === '#') {
      const end = pattern.indexOf('\n', t.i);
      t.i = end === -1 ? pattern.length : end + 1;
    } else outsideClass(t, char);
  }
  if (t.inClass) throw invalid(pattern, 'missing terminating ] for character class');
  return t.out;
}

/** Compiles a MongoDB regex (pattern + options string) to a JavaScript RegExp with its meaning. */
export function compileRegex(pattern: string, options: string): RegExp {
  for (const option of options) {
    if (!REGEX_OPTIONS.has(option))
      throw new CommandError(
        LocationCode.InvalidRegexOption,
        `invalid flag in regex options: ${option}`,
      );
  }
  const source = translate(pattern, options);
  try {
    return new RegExp(source, options.includes('i') ? 'iu' : 'u');
  } catch (error) {
    throw invalid(pattern, (error as Error).message);
  }
}
