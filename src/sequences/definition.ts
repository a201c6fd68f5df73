/**
 * What a sequence is: its definition (start, step, max), the limits every definition respects,
 * and how a definition is validated.
 *
 * Invariants (checked before anything is written):
 * - every value a sequence can issue is an integer within ±(2^53 - 1), so a JSON client holds it
 *   exactly. The largest value ever issued, its limit, is `max`, or 2^53 - 1 when unset (as
 *   documented; 0.3 stopped one step short, so that `next` could always be shown): an exhausted
 *   sequence's `next` is null instead;
 * - `step` is a whole number from 1 to 2^31 - 1 (stored as Int32). Negative steps are refused:
 *   the ids this service issues must increase, and a decreasing sequence would make the
 *   `userid` counter reissue ids already stored;
 * - `max >= start`, and `start - step` (the stored "last issued" value of a fresh sequence) is
 *   within range too;
 * - `holdSeconds` is set exactly when the sequence is gapless (./reservations.ts): each value is
 *   held that long for its client to confirm, from 1 s to 1 hour.
 * - `period` (./periods.ts) restarts the sequence at `start` every day, month or year of
 *   `timeZone`, which is set exactly when `period` is.
 * - `format` (./format.ts) parses, names only date parts its period carries, and a padded value
 *   fits its width: `max` is at most 10^width - 1 (that, when not given) and `start` not negative.
 * A definition never changes once its counter exists, which is what lets each process cache it,
 * and what keeps every issued number written the same way.
 */
import { GAPLESS, VALUES_PER_ALLOCATION } from '../limits';
import { BadUserInputError } from './errors';
import { largestPadded, parseFormat, widthOf } from './format';
import {
  DEFAULT_TIME_ZONE,
  type SequencePeriod,
  isSequencePeriod,
  validateTimeZone,
} from './periods';

export interface SequenceDefinition {
  start: number;
  step: number;
  max: number | null;
  /** Gapless only: how long an allocated value waits for its confirmation; null: not gapless. */
  holdSeconds: number | null;
  /** How values are written for people (`INV-{YYYY}-{seq:6}`); null: as plain numbers. */
  format: string | null;
  /** When the sequence restarts at `start`; null: never. */
  period: SequencePeriod | null;
  /** The IANA time zone whose days, months or years the periods are; null without a period. */
  timeZone: string | null;
}

/** What `createSequence` may say about a definition; absent fields take the defaults. */
export type DefinitionInput = Partial<
  Omit<SequenceDefinition, 'holdSeconds' | 'format' | 'period' | 'timeZone'>
> & {
  gapless?: boolean;
  holdSeconds?: number;
  format?: string;
  period?: SequencePeriod;
  timeZone?: string;
};

/** The largest integer a JSON (IEEE double) client holds exactly: 2^53 - 1. */
export const MAX_SEQUENCE_VALUE = Number.MAX_SAFE_INTEGER;
export const MAX_STEP = 2 ** 31 - 1;

/** What a sequence used before anyone created it gets: the tutorial's 1, 2, 3, ... */
export const IMPLICIT_DEFINITION: Readonly<SequenceDefinition> = Object.freeze({
  start: 1,
  step: 1,
  max: null,
  holdSeconds: null,
  format: null,
  period: null,
  timeZone: null,
});

/** The largest value the sequence may issue (see the invariants above). */
export function limitOf(definition: SequenceDefinition): number {
  return definition.max ?? MAX_SEQUENCE_VALUE;
}

export function isImplicitDefinition(definition: SequenceDefinition): boolean {
  return differingField(definition, IMPLICIT_DEFINITION) === null;
}

/** Throws BAD_USER_INPUT naming `field` unless `value` is an integer within ±(2^53 - 1). */
export function assertSequenceValue(value: number, field: string): void {
  if (!Number.isSafeInteger(value)) {
    throw new BadUserInputError(
      `${field} must be a whole number between -${MAX_SEQUENCE_VALUE} and ${MAX_SEQUENCE_VALUE}.`,
      { field },
    );
  }
}

/** Throws BAD_USER_INPUT (field `count`) unless 1 <= count <= 10,000. */
export function assertAllocationCount(count: number): void {
  if (!Number.isInteger(count) || count < 1 || count > VALUES_PER_ALLOCATION) {
    throw new BadUserInputError(
      `count must be a whole number from 1 to ${VALUES_PER_ALLOCATION}.`,
      {
        field: 'count',
      },
    );
  }
}

/**
 * A complete, valid definition from optional input fields (defaults: start 1, step 1, no max, not
 * gapless; a gapless one holds each value 60 s unless `holdSeconds` says otherwise).
 */
export function validateDefinition(input: DefinitionInput): SequenceDefinition {
  const start = input.start ?? IMPLICIT_DEFINITION.start;
  const step = input.step ?? IMPLICIT_DEFINITION.step;
  const holdSeconds = validateHold(input);
  const { period, timeZone } = validatePeriod(input);
  const format = input.format ?? null;
  const max = format === null ? (input.max ?? null) : paddedMax(format, period, start, input.max);
  assertSequenceValue(start, 'start');
  if (!Number.isInteger(step) || step < 1 || step > MAX_STEP) {
    throw new BadUserInputError(
      `step must be a whole number from 1 to ${MAX_STEP}: ids only ever increase.`,
      { field: 'step' },
    );
  }
  if (!Number.isSafeInteger(start - step)) {
    throw new BadUserInputError(`start - step must not be below -${MAX_SEQUENCE_VALUE}.`, {
      field: 'start',
    });
  }
  if (max !== null) {
    assertSequenceValue(max, 'max');
    if (max < start) {
      throw new BadUserInputError('max must not be below start.', { field: 'max' });
    }
  }
  return { start, step, max, holdSeconds, format, period, timeZone };
}

function validatePeriod(input: DefinitionInput): {
  period: SequencePeriod | null;
  timeZone: string | null;
} {
  const period = input.period ?? null;
  if (period === null) {
    if (input.timeZone !== undefined && input.timeZone !== null) {
      throw new BadUserInputError('timeZone is the zone of a period: add period.', {
        field: 'timeZone',
      });
    }
    return { period, timeZone: null };
  }
  if (!isSequencePeriod(period)) {
    throw new BadUserInputError('period must be DAILY, MONTHLY or YEARLY.', { field: 'period' });
  }
  return { period, timeZone: validateTimeZone(input.timeZone ?? DEFAULT_TIME_ZONE) };
}

/**
 * The `max` of a formatted sequence: a padded value's width bounds it (10^width - 1 when no max
 * is given; a larger max, or a negative start, is refused rather than truncated).
 */
function paddedMax(
  format: string,
  period: SequencePeriod | null,
  start: number,
  max: number | null | undefined,
): number | null {
  const largest = largestPadded(widthOf(parseFormat(format, period)));
  if (largest === null) return max ?? null;
  if (start < 0) {
    throw new BadUserInputError('A padded value cannot be negative: start must be 0 or more.', {
      field: 'format',
    });
  }
  if (max !== undefined && max !== null && max > largest) {
    throw new BadUserInputError(
      `max ${max} does not fit the format's padding: it holds at most ${largest}. Widen {seq:N} or lower max.`,
      { field: 'format' },
    );
  }
  if (start > largest) {
    throw new BadUserInputError(
      `start ${start} does not fit the format's padding: it holds at most ${largest}.`,
      { field: 'format' },
    );
  }
  return max ?? largest;
}

function validateHold(input: DefinitionInput): number | null {
  if (input.holdSeconds === undefined || input.holdSeconds === null) {
    return input.gapless === true ? GAPLESS.holdSeconds.default : null;
  }
  if (input.gapless !== true) {
    throw new BadUserInputError('holdSeconds is for gapless sequences: add gapless: true.', {
      field: 'holdSeconds',
    });
  }
  const { min, max } = GAPLESS.holdSeconds;
  if (!Number.isInteger(input.holdSeconds) || input.holdSeconds < min || input.holdSeconds > max) {
    throw new BadUserInputError(`holdSeconds must be a whole number from ${min} to ${max}.`, {
      field: 'holdSeconds',
    });
  }
  return input.holdSeconds;
}

/** The first field in which two definitions differ, or null when they are the same. */
export function differingField(
  a: SequenceDefinition,
  b: SequenceDefinition,
): keyof SequenceDefinition | null {
  if (a.start !== b.start) return 'start';
  if (a.step !== b.step) return 'step';
  if (a.max !== b.max) return 'max';
  if (a.holdSeconds !== b.holdSeconds) return 'holdSeconds';
  if (a.format !== b.format) return 'format';
  if (a.period !== b.period) return 'period';
  if (a.timeZone !== b.timeZone) return 'timeZone';
  return null;
}
