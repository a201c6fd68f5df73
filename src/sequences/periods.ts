/**
 * Periods: a sequence that restarts every day, month or year in a named (IANA) time zone.
 *
 * Which clock decides: the database's. The period of an allocation is computed by MongoDB itself
 * (`$dateToString` of `$$NOW` in the sequence's zone) inside the one atomic update that issues the
 * values (./guarded-increment.ts), so service instances whose clocks disagree by seconds cannot
 * disagree on the period, and no allocation reads a clock apart from the write it decides. The
 * same clock answers `formattedNext` before a sequence's first allocation (./catalog.ts), when no
 * period is stored yet: read then, it names the period that allocation would start.
 *
 * Invariants:
 * - A period is named by its key, the local date it covers written `YYYY`, `YYYY-MM` or
 *   `YYYY-MM-DD`; keys of one sequence compare as strings in the order of time, so the stored
 *   `currentPeriod` moves only forward (the larger of the stored key and the clock's), and no
 *   allocation is numbered in a period before one already numbered.
 * - A period's counter stays readable after it ends: the update that starts a new period keeps
 *   the ended one's last value in the counter (`endedPeriod`), ./sequences.ts copies it into the
 *   `sequencePeriods` collection and only then clears it, and no period ends while one is still
 *   held (the allocation is refused, the copy made, and the allocation retried), so none is lost
 *   to a crash between the two writes. Gapless sequences keep each period's values instead
 *   (./reservations.ts).
 * - A time zone is a name ICU knows (Node's `Intl`, the tz database MongoDB also carries), never a
 *   bare offset: an offset does not follow a country's summer time.
 */
import { BadUserInputError } from './errors';

export type SequencePeriod = 'DAILY' | 'MONTHLY' | 'YEARLY';

export const SEQUENCE_PERIODS: readonly SequencePeriod[] = ['DAILY', 'MONTHLY', 'YEARLY'];

/** The time zone of a period given without one. */
export const DEFAULT_TIME_ZONE = 'UTC';

/** `$dateToString` formats of a period's key. */
export const PERIOD_KEY_FORMAT: Readonly<Record<SequencePeriod, string>> = {
  YEARLY: '%Y',
  MONTHLY: '%Y-%m',
  DAILY: '%Y-%m-%d',
};

/** How each kind of period's key is written, for messages. */
export const PERIOD_KEY_EXAMPLE: Readonly<Record<SequencePeriod, string>> = {
  YEARLY: '"2026"',
  MONTHLY: '"2026-12"',
  DAILY: '"2026-12-31"',
};

const PERIOD_KEY: Readonly<Record<SequencePeriod, RegExp>> = {
  YEARLY: /^\d{4}$/,
  MONTHLY: /^\d{4}-\d{2}$/,
  DAILY: /^\d{4}-\d{2}-\d{2}$/,
};

/** The shape of any period's key (the kind of period is checked where it is known). */
export const PERIOD_KEY_SHAPE = /^\d{4}(-\d{2}){0,2}$/;

/** An IANA name's shape: `Europe/Berlin`, `America/Argentina/Buenos_Aires`, `Etc/GMT+5`, `UTC`. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

export function isSequencePeriod(value: unknown): value is SequencePeriod {
  return SEQUENCE_PERIODS.includes(value as SequencePeriod);
}

/** Whether `key` names a period of this kind (a stored `currentPeriod` is read defensively). */
export function isPeriodKey(period: SequencePeriod, key: unknown): key is string {
  return typeof key === 'string' && PERIOD_KEY[period].test(key);
}

/**
 * The time zone name to store for `zone` (ICU's spelling when it differs only in case), or
 * BAD_USER_INPUT naming `timeZone` when ICU does not know it or it is an offset.
 */
export function validateTimeZone(zone: string): string {
  const refused = () =>
    new BadUserInputError(
      `timeZone must be an IANA time zone name such as "Europe/Berlin" or "UTC"; "${zone.slice(0, 64)}" is not one.`,
      { field: 'timeZone' },
    );
  if (typeof zone !== 'string' || zone.length > 64 || !ZONE_NAME.test(zone)) throw refused();
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw refused();
  }
  return resolved.toLowerCase() === zone.toLowerCase() ? resolved : zone;
}

/** A periodic sequence's period and zone. */
export interface PeriodClock {
  period: SequencePeriod;
  timeZone: string;
}

/** The period and zone of a definition that has a period; null for one that has not. */
export function periodClockOf(definition: {
  period: SequencePeriod | null;
  timeZone: string | null;
}): PeriodClock | null {
  const { period, timeZone } = definition;
  return period === null || timeZone === null ? null : { period, timeZone };
}

/** An aggregation expression: the key of the period the database's clock (`$$NOW`) is in. */
export function periodNow({ period, timeZone }: PeriodClock): Record<string, unknown> {
  return {
    $dateToString: { date: '$$NOW', format: PERIOD_KEY_FORMAT[period], timezone: timeZone },
  };
}

/**
 * An aggregation expression: true when the database's clock is in a period after the counter's
 * stored `currentPeriod` (or none is stored).
 */
export function startsPeriod(clock: PeriodClock): Record<string, unknown> {
  return { $gt: [periodNow(clock), { $ifNull: ['$currentPeriod', ''] }] };
}

/** An aggregation expression: true while the counter holds no ended period to archive. */
export const NO_ENDED_PERIOD = { $eq: [{ $ifNull: ['$endedPeriod', null] }, null] };

/**
 * An aggregation expression: the counter's `endedPeriod` when `ends` (an expression) is true and
 * it has a stored period (`{ period, value }`: the period and the last value issued in it), else
 * the stored one. Its writer's filter only lets a period end while none is held (`NO_ENDED_PERIOD`),
 * so no ended period is overwritten before ./sequences.ts archives it.
 */
export function endedPeriodWhen(ends: Record<string, unknown>): Record<string, unknown> {
  return {
    $cond: [
      { $and: [ends, { $ne: [{ $ifNull: ['$currentPeriod', null] }, null] }] },
      { period: '$currentPeriod', value: '$seq' },
      '$endedPeriod',
    ],
  };
}
