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

/** Rewrites one PCRE2 pattern into JavaScript `u`-mode syntax (see the header). */
function translate(pattern: string, options: string): string {
  const multiline = options.includes('m');
  const dotAll = options.includes('s');
  const extended = options.includes('x');
  let out = '';
  let inClass = false;
  let i = 0;
  const refuse = (what: string) => unsupported(`the PCRE construct ${what} in /${pattern}/`);
  while (i < pattern.length) {
    const char = pattern[i];
    if (char === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) throw invalid(pattern, '\\ at end of pattern');
      i += 2;
      if (next === 'Q') {
        const end = pattern.indexOf('\\E', i);
        const quoted = pattern.slice(i, end === -1 ? undefined : end);
        out += [...quoted].map(literal).join('');
        i = end === -1 ? pattern.length : end + 2;
      } else if (next === 's') out += inClass ? PCRE_SPACES : `[${PCRE_SPACES}]`;
      else if (next === 'S') {
        if (inClass) throw refuse('\\S inside a character class');
        out += `[^${PCRE_SPACES}]`;
      } else if (next === 'A' && !inClass) out += '(?<![\\s\\S])';
      else if (next === 'z' && !inClass) out += '(?![\\s\\S])';
      else if (next === 'Z' && !inClass) out += '(?=\\n?(?![\\s\\S]))';
      else if (next === 'e') out += '\\x1b';
      else if (next === 'x') {
        const braced = /^\{([0-9A-Fa-f]+)\}/.exec(pattern.slice(i));
        const short = /^[0-9A-Fa-f]{0,2}/.exec(pattern.slice(i))![0];
        const digits = braced ? braced[1] : short;
        out += hex(digits.length === 0 ? 0 : parseInt(digits, 16));
        i += braced ? braced[0].length : short.length;
      } else if (next === 'c' && /[A-Za-z]/.test(pattern[i] ?? '')) out += `\\c${pattern[i++]}`;
      else if (next === '0' && !/[0-7]/.test(pattern[i] ?? '')) out += '\\0';
      else if (/[1-9]/.test(next) && !inClass && !/[0-9]/.test(pattern[i] ?? ''))
        out += `\\${next}`;
      else if (/[0-9]/.test(next)) throw refuse('octal escapes and back references above \\9');
      else if (SAME_ESCAPES.has(next)) {
        if (next === 'b' && inClass) out += '\\x08';
        else if (next === 'a') out += '\\x07';
        else out += `\\${next}`;
      } else if (REFUSED_ESCAPES[next]) throw refuse(REFUSED_ESCAPES[next]);
      else if (WORD_OR_DIGIT.test(next)) throw invalid(pattern, `unrecognized escape \\${next}`);
      else {
        const codePoint = pattern.codePointAt(i - 1)!;
        if (codePoint > 0xffff) i++;
        out += hex(codePoint);
      }
      continue;
    }
    if (inClass) {
      if (char === '[' && pattern[i + 1] === ':') throw refuse('POSIX character classes [:…:]');
      if (char === ']') inClass = false;
      out += char === '[' ? '\\[' : char;
      i++;
      continue;
    }
    if (extended && /[ \t\n\v\f\r]/.test(char)) {
      i++;
      continue;
    }
    if (extended && char === '#') {
      const end = pattern.indexOf('\n', i);
      i = end === -1 ? pattern.length : end + 1;
      continue;
    }
    switch (char) {
      case '[': {
        inClass = true;
        out += '[';
        i++;
        if (pattern[i] === '^') out += pattern[i++];
        // A ']' right after '[' or '[^' is a literal in PCRE.
        if (pattern[i] === ']') {
          out += '\\]';
          i++;
        }
        continue;
      }
      case '.':
        out += dotAll ? '[\\s\\S]' : '[^\\n]';
        break;
      case '^':
        out += multiline ? '(?:(?<![\\s\\S])|(?<=\\n)(?=[\\s\\S]))' : '(?<![\\s\\S])';
        break;
      case '$':
        out += multiline ? '(?=\\n|(?![\\s\\S]))' : '(?=\\n?(?![\\s\\S]))';
        break;
      case '(': {
        const rest = pattern.slice(i + 1);
        if (rest.startsWith('?#')) {
          const end = pattern.indexOf(')', i);
          if (end === -1) throw invalid(pattern, 'missing ) after (?# comment');
          i = end + 1;
          continue;
        }
        if (rest.startsWith('?P<')) {
          out += '(?<';
          i += 4;
          continue;
        }
        if (rest.startsWith('?') && !/^\?(:|=|!|<=|<!|<[A-Za-z_])/.test(rest)) {
          throw refuse(
            `(${rest.slice(0, 3)}… (atomic groups, inline options, recursion, conditionals)`,
          );
        }
        out += '(';
        break;
      }
      case '{': {
        const length = quantifierLength(pattern, i);
        if (length === 0) {
          out += '\\{';
          break;
        }
        out += pattern.slice(i, i + length);
        i += length;
        if (pattern[i] === '+') throw refuse('possessive quantifiers');
        continue;
      }
      case '}':
      case ']':
        out += `\\${char}`;
        break;
      case '*':
      case '+':
      case '?':
        out += char;
        if (pattern[i + 1] === '+') throw refuse('possessive quantifiers');
        break;
      default: {
        const codePoint = pattern.codePointAt(i)!;
        const text = String.fromCodePoint(codePoint);
        out += text;
        i += text.length;
        continue;
      }
    }
    i++;
  }
  if (inClass) throw invalid(pattern, 'missing terminating ] for character class');
  return out;
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
