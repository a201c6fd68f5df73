/**
 * Display formats: how a sequence's values are written for people, `INV-{YYYY}-{seq:6}` for
 * `INV-2026-000042`.
 *
 * Syntax: literal text with exactly one `{seq}` (the value) or `{seq:N}` (zero-padded to N
 * digits, 1 to 16), and the date parts of the period the value was issued in: `{YYYY}` and `{YY}`
 * for any period, `{MM}` for a monthly or daily one, `{DD}` for a daily one. Literal text is
 * letters, digits, punctuation, symbols and spaces, but no `{` or `}`.
 *
 * Invariants:
 * - A format is checked when its sequence is defined, against the definition: a padded value never
 *   outgrows its width (the width bounds `max`, and a larger `max` or a negative `start` is
 *   refused), so a formatted number is never truncated and never wider than the others.
 * - A value is formatted from the definition stored with it and the period it was issued in;
 *   definitions never change, so a number once issued is always written the same way.
 * - `userid`, whose definition is fixed, takes its formats afterwards, as versions: append-only,
 *   each covering the values from its `from`, the first value nobody held when it was set (the
 *   counter moves up to just below it in the same write), up to the next version's. Why versions
 *   rather than a format that may change while its padding fits every issued value: a number is
 *   computed on read from the id, and any change of the one format would rewrite every number
 *   already answered (`C-000042` becoming `CUST-000042`); with versions an id keeps the version
 *   that covered it when it was issued. A version's padding must hold its `from`; a value past it
 *   is written as nothing (null), never truncated, never wider, until a wider version is set.
 */
import { SEQUENCE_FORMAT } from '../limits';
import { BadUserInputError } from './errors';
import type { SequencePeriod } from './periods';

type DatePart = 'YYYY' | 'YY' | 'MM' | 'DD';

type FormatPart = { literal: string } | { value: { width: number | null } } | { date: DatePart };

/** The periods that carry each date part. */
const PART_PERIODS: Readonly<Record<DatePart, readonly SequencePeriod[]>> = {
  YYYY: ['YEARLY', 'MONTHLY', 'DAILY'],
  YY: ['YEARLY', 'MONTHLY', 'DAILY'],
  MM: ['MONTHLY', 'DAILY'],
  DD: ['DAILY'],
};

/** A date part's characters in a period key (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`). */
const PART_OF_KEY: Readonly<Record<DatePart, [number, number]>> = {
  YYYY: [0, 4],
  YY: [2, 4],
  MM: [5, 7],
  DD: [8, 10],
};

const PLACEHOLDER = /\{([^{}]*)\}/g;
const LITERAL = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]*$/u;
const NOT_LITERAL = /[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/gu;
const VALUE = /^seq(?::(\d{1,2}))?$/;

function refused(message: string): BadUserInputError {
  return new BadUserInputError(message, { field: 'format' });
}

/**
 * `format` as a refusal quotes it: each character a format may not hold written as its code point
 * (`<U+202E>`), so the answer never carries a direction override or a NUL back to the caller.
 */
function quoted(format: string): string {
  const codePoint = (character: string) =>
    `<U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;
  return `"${format.replace(NOT_LITERAL, codePoint)}"`;
}

function literal(text: string): FormatPart {
  if (text.includes('{') || text.includes('}') || !LITERAL.test(text)) {
    throw refused(
      `format text is letters, digits, punctuation, symbols and spaces, with placeholders in braces: {seq}, {seq:6}, {YYYY}, {YY}, {MM}, {DD}; ${quoted(text)} is not.`,
    );
  }
  return { literal: text };
}

function placeholder(name: string, period: SequencePeriod | null): FormatPart {
  const value = VALUE.exec(name);
  if (value !== null) {
    const width = value[1] === undefined ? null : Number(value[1]);
    if (width !== null && (width < 1 || width > SEQUENCE_FORMAT.maxWidth)) {
      throw refused(`{seq:N} pads to 1 to ${SEQUENCE_FORMAT.maxWidth} digits; ${width} is not.`);
    }
    return { value: { width } };
  }
  if (Object.hasOwn(PART_PERIODS, name)) {
    const part = name as DatePart;
    if (period === null || !PART_PERIODS[part].includes(period)) {
      throw refused(
        `{${part}} is a date part of the period a value is issued in: it needs period ${PART_PERIODS[part].join(' or ')}.`,
      );
    }
    return { date: part };
  }
  throw refused(`Unknown placeholder {${name}}: use {seq}, {seq:6}, {YYYY}, {YY}, {MM} or {DD}.`);
}

/** The parts of a format, or BAD_USER_INPUT naming `format` (see the syntax above). */
export function parseFormat(format: string, period: SequencePeriod | null): FormatPart[] {
  if (
    typeof format !== 'string' ||
    format.length < 1 ||
    format.length > SEQUENCE_FORMAT.maxLength
  ) {
    throw refused(`format must be 1 to ${SEQUENCE_FORMAT.maxLength} characters.`);
  }
  const parts: FormatPart[] = [];
  let at = 0;
  for (const match of format.matchAll(PLACEHOLDER)) {
    const index = match.index ?? at;
    if (index > at) parts.push(literal(format.slice(at, index)));
    parts.push(placeholder(match[1], period));
    at = index + match[0].length;
  }
  if (at < format.length) parts.push(literal(format.slice(at)));
  if (parts.filter((part) => 'value' in part).length !== 1) {
    throw refused('format must hold the value exactly once, as {seq} or {seq:N}.');
  }
  return parts;
}

/** The padding width of a format's value, or null when it is not padded. */
export function widthOf(parts: FormatPart[]): number | null {
  for (const part of parts) if ('value' in part) return part.value.width;
  return null;
}

/**
 * The largest value `{seq:N}` holds, 10^N - 1, within 2^53 - 1; null for an unpadded value.
 */
export function largestPadded(width: number | null): number | null {
  return width === null ? null : Math.min(10 ** width - 1, Number.MAX_SAFE_INTEGER);
}

/** `value` written in `format`, issued in the period `periodKey` (null: a sequence without one). */
export function formatValue(parts: FormatPart[], value: number, periodKey: string | null): string {
  let out = '';
  for (const part of parts) {
    if ('literal' in part) out += part.literal;
    else if ('value' in part) {
      out +=
        part.value.width === null ? String(value) : String(value).padStart(part.value.width, '0');
    } else out += periodKey === null ? '' : periodKey.slice(...PART_OF_KEY[part.date]);
  }
  return out;
}

/** `values`, issued together in the period `periodKey`, each written in `format`. */
export function formatValues(
  format: string,
  period: SequencePeriod | null,
  values: number[],
  periodKey: string | null,
): string[] {
  const parts = parseFormat(format, period);
  return values.map((value) => formatValue(parts, value, periodKey));
}

/**
 * A format of a sequence whose definition is fixed (`userid`), from the first value it writes:
 * the value `from` and every later one up to the next version's `from`.
 */
export interface FormatVersion {
  from: number;
  format: string;
}

/**
 * The value `from` and above as written by a format set now: BAD_USER_INPUT naming `format` when
 * it does not parse (no date parts: such a sequence has no period) or when its padding cannot hold
 * `from`, the first value it would write.
 */
export function validateFormatFrom(format: string, from: number): void {
  const largest = largestPadded(widthOf(parseFormat(format, null)));
  if (largest !== null && from > largest) {
    throw refused(
      `The next value is ${from}, which does not fit the format's padding: it holds at most ${largest}. Widen {seq:N}.`,
    );
  }
}

/**
 * `value` in the version of `versions` (ascending by `from`) that covers it: null below the first
 * version's `from` (issued before any format) and past its padding (never truncated, never wider
 * than the others; a wider version set later writes the values from then on).
 */
export function formatByVersion(versions: readonly FormatVersion[], value: number): string | null {
  for (let i = versions.length - 1; i >= 0; i -= 1) {
    if (versions[i].from > value) continue;
    const parts = parseFormat(versions[i].format, null);
    const largest = largestPadded(widthOf(parts));
    return largest !== null && value > largest ? null : formatValue(parts, value, null);
  }
  return null;
}
