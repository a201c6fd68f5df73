/**
 * `$dateToString` as mongod evaluates it, for the format characters this repository's service
 * uses (`%Y %m %d %H %M %S %L %j %%`), in UTC, an Olson time zone (`Europe/Berlin`) or a fixed
 * offset (`+01:00`, `-0530`, `+03`). Local times in an Olson zone come from the ICU data Node
 * ships (`Intl.DateTimeFormat`), the same tz database mongod carries. Other format characters are
 * refused by name rather than answered wrongly; the refusals of malformed arguments carry
 * mongod's codes.
 */
import { CommandError, unsupported } from './errors';
import { isPlainDocument } from './values';

/** Codes mongod raises for `$dateToString`'s arguments (unnamed assertions: `Location<code>`). */
const DateCode = {
  NotAnObject: 18629,
  UnknownArgument: 18534,
  MissingDate: 18628,
  FormatNotString: 18533,
  InvalidFormatCharacter: 18536,
  UnknownTimeZone: 40485,
  TimeZoneNotString: 40517,
  NotADate: 16006,
} as const;

const ARGUMENTS = new Set(['date', 'format', 'timezone', 'onNull']);
const DEFAULT_FORMAT = '%Y-%m-%dT%H:%M:%S.%LZ';
const OFFSET = /^([+-])(\d{2})(?::?(\d{2}))?$/;

/** A date's calendar fields in one time zone. */
interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/** One formatter per Olson zone met; only zones ICU accepted get one, so the map stays small. */
const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

function zoneFormatter(zone: string): Intl.DateTimeFormat {
  let formatter = zoneFormatters.get(zone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new CommandError(
        DateCode.UnknownTimeZone,
        `unrecognized time zone identifier: "${zone}"`,
      );
    }
    zoneFormatters.set(zone, formatter);
  }
  return formatter;
}

function utcFields(date: Date): LocalTime {
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    millisecond: date.getUTCMilliseconds(),
  };
}

/** The calendar fields of `date` in `timezone` (null or absent: UTC). */
function localTime(date: Date, timezone: string | undefined): LocalTime {
  if (timezone === undefined || timezone === 'UTC' || timezone === 'GMT') return utcFields(date);
  const offset = OFFSET.exec(timezone);
  if (offset !== null) {
    const minutes = Number(offset[2]) * 60 + Number(offset[3] ?? 0);
    return utcFields(new Date(date.getTime() + (offset[1] === '-' ? -minutes : minutes) * 60_000));
  }
  const parts = Object.fromEntries(
    zoneFormatter(timezone)
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    millisecond: date.getUTCMilliseconds(),
  };
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

function dayOfYear({ year, month, day }: LocalTime): number {
  return (Date.UTC(year, month - 1, day) - Date.UTC(year, 0, 1)) / 86_400_000 + 1;
}

function formatted(time: LocalTime, format: string): string {
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const char = format[i];
    if (char !== '%') {
      out += char;
      continue;
    }
    const spec = format[++i];
    switch (spec) {
      case 'Y':
        out += pad(time.year, 4);
        break;
      case 'm':
        out += pad(time.month, 2);
        break;
      case 'd':
        out += pad(time.day, 2);
        break;
      case 'H':
        out += pad(time.hour, 2);
        break;
      case 'M':
        out += pad(time.minute, 2);
        break;
      case 'S':
        out += pad(time.second, 2);
        break;
      case 'L':
        out += pad(time.millisecond, 3);
        break;
      case 'j':
        out += pad(dayOfYear(time), 3);
        break;
      case '%':
        out += '%';
        break;
      case undefined:
        throw new CommandError(
          DateCode.InvalidFormatCharacter,
          "Unmatched '%' at end of format string",
        );
      default:
        if ('GwuUVzZbB'.includes(spec))
          throw unsupported(`the $dateToString format character %${spec}`);
        throw new CommandError(
          DateCode.InvalidFormatCharacter,
          `Invalid format character '%${spec}' in format string`,
        );
    }
  }
  return out;
}

/**
 * `$dateToString` of its arguments, each already evaluated: `date` a Date (null or missing:
 * `onNull`, else null), `format` (default ISO 8601 in UTC), `timezone`.
 */
export function dateToString(
  spec: unknown,
  evaluateArgument: (expression: unknown) => unknown,
): unknown {
  if (!isPlainDocument(spec)) {
    throw new CommandError(
      DateCode.NotAnObject,
      '$dateToString only supports an object as its argument',
    );
  }
  for (const field of Object.keys(spec)) {
    if (!ARGUMENTS.has(field)) {
      throw new CommandError(
        DateCode.UnknownArgument,
        `Unrecognized argument to $dateToString: ${field}`,
      );
    }
  }
  if (!('date' in spec)) {
    throw new CommandError(DateCode.MissingDate, "Missing 'date' parameter to $dateToString");
  }
  const format = 'format' in spec ? evaluateArgument(spec.format) : DEFAULT_FORMAT;
  const timezone = 'timezone' in spec ? evaluateArgument(spec.timezone) : undefined;
  const date = evaluateArgument(spec.date);
  if (format === null || timezone === null) return null;
  if (format !== undefined && typeof format !== 'string') {
    throw new CommandError(
      DateCode.FormatNotString,
      "$dateToString requires that 'format' be a string",
    );
  }
  if (timezone !== undefined && typeof timezone !== 'string') {
    throw new CommandError(DateCode.TimeZoneNotString, 'timezone must evaluate to a string');
  }
  if (date === null || date === undefined) {
    return 'onNull' in spec ? (evaluateArgument(spec.onNull) ?? null) : null;
  }
  if (!(date instanceof Date)) {
    const type =
      typeof date === 'string' ? 'string' : typeof date === 'number' ? 'double' : typeof date;
    throw new CommandError(DateCode.NotADate, `can't convert from BSON type ${type} to Date`);
  }
  return formatted(localTime(date, timezone), format ?? DEFAULT_FORMAT);
}
