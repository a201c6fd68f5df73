/**
 * The stored shape of a counter and its reading as a `SequenceState`.
 *
 * Storage (docs/ARCHITECTURE.md): `{ _id, name, scope?, owner?, seq: Int64, start: Int64, step:
 * Int32, max?: Int64, updatedAt }`, where `seq` is the last value issued (`start - step` before the
 * first). A gapless sequence adds `holdSeconds: Int32`, `freeCheckAt` and `releases`
 * (./reservations.ts owns those two, and keeps each value in a document of its own; 0.4 kept the
 * waiting values in `pending`, which ./reservations.ts moves out when it meets one). A formatted
 * sequence adds `format`; a periodic one `period`, `timeZone` and, once it issued a value,
 * `currentPeriod` (the key of the period `seq` counts in, ./periods.ts) and, from a change of
 * period until its archive in `sequencePeriods`, `endedPeriod: { period, value }`. `userid` may add
 * `formats: [{ from: Int64, format }]`, its display formats ascending by `from` (./format.ts). The
 * collection is read with `promoteLongs: false`, so Int64 fields arrive as `Long`.
 * A counter written by the tutorial's own shell commands (`{ _id, seq: 0 }`, a double, no
 * definition) reads as the implicit definition.
 *
 * Reading a counter is pure: no clock. So a periodic sequence with a format that has not
 * allocated yet, which stores no period, reads with a null `formattedNext` here; the catalog
 * (`SequenceCatalog.formattedNext`) writes its `next` in the period the database's clock is in,
 * the clock its first allocation will take the period from (./periods.ts).
 *
 * Invariant: documents are read defensively, since anyone with database access may have written
 * them. Every number leaving this module is a whole number within ±(2^53 - 1) (a step within
 * 1..2^31 - 1); anything else (the string "17", NaN, 17.5, an Int64 beyond 2^53) is a
 * `SequenceCorruptError` naming the document, the field and the repair, never a value.
 */
import { Long } from 'mongodb';
import { GAPLESS } from '../limits';
import { IMPLICIT_DEFINITION, limitOf, MAX_STEP, type SequenceDefinition } from './definition';
import { SequenceCorruptError } from './errors';
import { type FormatVersion, formatByVersion, formatValue, parseFormat } from './format';
import type { ResolvedKey } from './keys';
import { isPeriodKey, isSequencePeriod, type SequencePeriod } from './periods';

export interface CounterDocument {
  _id: string;
  name?: string;
  scope?: string;
  /** The client that created the sequence; absent: admin only (0.1 counters, `userid`). */
  owner?: string;
  seq: Long | number;
  start?: Long | number;
  step?: number;
  max?: Long | number | null;
  /** Gapless sequences only (./reservations.ts). */
  holdSeconds?: number;
  /** No value of the sequence can be free before this time; absent: none is waiting. */
  freeCheckAt?: Date;
  /** How many values were released, so a `freeCheckAt` search never hides a release. */
  releases?: Long | number;
  /** How values are written for people (./format.ts). */
  format?: string;
  /** When the sequence restarts (./periods.ts), in `timeZone`. */
  period?: SequencePeriod;
  timeZone?: string;
  /** The key of the period `seq` counts in; absent until the first allocation. */
  currentPeriod?: string;
  /** The period that ended at the last change of period, until it is archived (./periods.ts). */
  endedPeriod?: { period: string; value: Long | number };
  /** `userid` only: its display formats, ascending by `from` (./format.ts, `FormatVersion`). */
  formats?: { from: Long | number; format: string }[];
  /** 0.4's waiting values, moved into value documents when ./reservations.ts meets them. */
  pending?: PendingValue[];
  rev?: Long | number;
  updatedAt?: Date;
}

/**
 * A value of a 0.4 gapless sequence that is issued but not confirmed: held by the client with
 * `token` until `expiresAt`; once that has passed (or the client released it, `token: null`) it
 * is handed out again before any new value.
 */
export interface PendingValue {
  value: Long;
  token: string | null;
  expiresAt: Date;
}

export interface SequenceState extends SequenceDefinition {
  /** Stable and unique: `name`, or `name/scope` (the counter's `_id`). */
  id: string;
  name: string;
  scope: string | null;
  /** The client that owns the sequence; null: admin only. */
  owner: string | null;
  /** The last value issued; `start - step` when none has been issued yet. */
  value: number;
  /**
   * The next new value, null once the sequence is exhausted (no value up to its limit is left). A
   * gapless sequence hands out its released or expired values (its `gaps`) before it.
   */
  next: number | null;
  /** True when every value must be confirmed and unconfirmed ones are issued again. */
  gapless: boolean;
  /** For a periodic sequence: the period `value` was issued in (`2026`); null before the first. */
  currentPeriod: string | null;
  /** `value` in the sequence's format and period; null without a format or before the first. */
  formattedValue: string | null;
  /**
   * `next` in the format and `currentPeriod` (the period `next` counts in); null without a format,
   * once exhausted, or for a periodic sequence before its first allocation (which the catalog
   * writes in the database clock's period, `SequenceCatalog.formattedNext`).
   */
  formattedNext: string | null;
  updatedAt: Date | null;
  /**
   * For a sequence that feeds stored ids (`userid`): its value minus the largest stored id
   * (negative: the counter lags, and the next insert repairs it). Null for every other sequence.
   */
  drift: number | null;
}

export function toLong(value: number): Long {
  return Long.fromNumber(value);
}

function described(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (value instanceof Long) return `the Int64 ${value.toString()}`;
  if (typeof value === 'number') return String(value);
  if (value === null) return 'null';
  return `a value of type ${(value as { _bsontype?: string })?._bsontype ?? typeof value}`;
}

function corrupt(doc: CounterDocument, field: string, value: unknown, what: string) {
  const id = JSON.stringify(doc._id);
  return new SequenceCorruptError(
    `Counter ${id} in the counters collection holds ${field} = ${described(value)}, which is not ${what}; nothing was issued from it. ` +
      `An operator must repair it, e.g. in mongosh: db.counters.updateOne({ _id: ${id} }, { $set: { ${field}: NumberLong(<the right value>) } })` +
      (field === 'seq' ? ' with the last value issued (for userid: the largest user _id).' : '.'),
  );
}

/** A stored whole number within ±(2^53 - 1), or SEQUENCE_CORRUPT naming the document. */
export function storedInteger(doc: CounterDocument, field: string, value: unknown) {
  const number =
    value instanceof Long &&
    value.lessThanOrEqual(Number.MAX_SAFE_INTEGER) &&
    value.greaterThanOrEqual(-Number.MAX_SAFE_INTEGER)
      ? value.toNumber()
      : value;
  if (typeof number === 'number' && Number.isSafeInteger(number)) return number;
  throw corrupt(doc, field, value, 'a whole number within ±(2^53 - 1)');
}

/** The last value issued, read defensively. */
export function storedSeq(doc: CounterDocument): number {
  return storedInteger(doc, 'seq', doc.seq);
}

export function definitionOf(doc: CounterDocument): SequenceDefinition {
  // An Int64 step (NumberLong(2) typed in mongosh) is a whole number like any other; only its
  // value decides.
  const stored: unknown = doc.step ?? IMPLICIT_DEFINITION.step;
  const step = stored instanceof Long ? stored.toNumber() : stored;
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 1 || step > MAX_STEP) {
    throw corrupt(doc, 'step', doc.step, `a whole number from 1 to ${MAX_STEP}`);
  }
  return {
    start:
      doc.start === undefined ? IMPLICIT_DEFINITION.start : storedInteger(doc, 'start', doc.start),
    step,
    max: doc.max === undefined || doc.max === null ? null : storedInteger(doc, 'max', doc.max),
    holdSeconds: storedHold(doc),
    ...storedNumbering(doc),
  };
}

/** The stored format, period and time zone: strings of their kind, the zone exactly with a period. */
function storedNumbering(
  doc: CounterDocument,
): Pick<SequenceDefinition, 'format' | 'period' | 'timeZone'> {
  const period = doc.period ?? null;
  if (period !== null && !isSequencePeriod(period)) {
    throw corrupt(doc, 'period', period, 'one of "DAILY", "MONTHLY", "YEARLY"');
  }
  const timeZone = doc.timeZone ?? null;
  if (
    (period === null) !== (timeZone === null) ||
    (timeZone !== null && typeof timeZone !== 'string')
  ) {
    throw corrupt(doc, 'timeZone', timeZone, 'a time zone name, set exactly when period is');
  }
  const format = doc.format ?? null;
  if (format !== null) {
    try {
      parseFormat(format, period);
    } catch {
      throw corrupt(
        doc,
        'format',
        format,
        `a format of a sequence with period ${period ?? 'none'}`,
      );
    }
  }
  return { format, period, timeZone };
}

/** The stored period key, when the sequence has a period and issued a value in one. */
export function storedPeriodKey(
  doc: CounterDocument,
  period: SequencePeriod | null,
): string | null {
  if (period === null || doc.currentPeriod === undefined) return null;
  if (isPeriodKey(period, doc.currentPeriod)) return doc.currentPeriod;
  throw corrupt(doc, 'currentPeriod', doc.currentPeriod, `a period key of a ${period} sequence`);
}

function storedHold(doc: CounterDocument): number | null {
  const hold: unknown = doc.holdSeconds;
  if (hold === undefined) return null;
  const { min, max } = GAPLESS.holdSeconds;
  if (typeof hold === 'number' && Number.isInteger(hold) && hold >= min && hold <= max) return hold;
  throw corrupt(doc, 'holdSeconds', hold, `a whole number of seconds from ${min} to ${max}`);
}

/**
 * The pending values of a 0.4 gapless counter, sorted by value; SEQUENCE_CORRUPT when an entry is not a
 * whole-number value with a token (or null) and an expiry date.
 */
export function storedPending(doc: CounterDocument): PendingValue[] {
  const stored: unknown = doc.pending ?? [];
  if (!Array.isArray(stored)) throw corrupt(doc, 'pending', stored, 'an array');
  return stored
    .map((entry: Partial<PendingValue> | null) => {
      const value = toLong(storedInteger(doc, 'pending.value', entry?.value));
      if (
        !(entry?.expiresAt instanceof Date) ||
        (entry.token !== null && typeof entry.token !== 'string')
      ) {
        throw corrupt(doc, 'pending', entry, 'a list of { value, token, expiresAt }');
      }
      return { value, token: entry.token, expiresAt: entry.expiresAt };
    })
    .sort((a, b) => a.value.compare(b.value));
}

/**
 * True when a counter lacks the stored definition, holds `seq` or `start` as another type than
 * Int64 (tutorial-era documents, counters typed in mongosh, where `1` is a double), or stores "no
 * max" as `max: null`. Allocation matches only Int64 `seq` and `start` and an absent `max`, so
 * such a counter is first rewritten (or refused as corrupt) and never incremented as it is.
 */
export function isLegacyCounter(doc: CounterDocument): boolean {
  return (
    doc.step === undefined ||
    !(doc.seq instanceof Long) ||
    !(doc.start instanceof Long) ||
    doc.max === null
  );
}

/** `next` when the sequence may still issue it, else null (exhausted). */
function withinLimit(next: number, definition: SequenceDefinition): number | null {
  return next > limitOf(definition) ? null : next;
}

/**
 * The display formats of a sequence whose definition is fixed, ascending by `from` (empty: none);
 * SEQUENCE_CORRUPT unless each is a whole `from` with a format of a sequence without a period.
 */
export function storedFormatVersions(doc: CounterDocument): FormatVersion[] {
  const stored: unknown = doc.formats ?? [];
  if (!Array.isArray(stored)) throw corrupt(doc, 'formats', stored, 'an array');
  let previous = -Infinity;
  return stored.map((entry: { from?: unknown; format?: unknown } | null) => {
    const from = storedInteger(doc, 'formats.from', entry?.from);
    const format = entry?.format;
    let parses = typeof format === 'string' && from > previous;
    if (parses) {
      try {
        parseFormat(format as string, null);
      } catch {
        parses = false;
      }
    }
    if (!parses) {
      throw corrupt(doc, 'formats', entry, 'a list of { from, format } ascending by from');
    }
    previous = from;
    return { from, format: format as string };
  });
}

export function toState(key: ResolvedKey, doc: CounterDocument): SequenceState {
  const definition = definitionOf(doc);
  const value = storedSeq(doc);
  const next = withinLimit(value + definition.step, definition);
  const currentPeriod = storedPeriodKey(doc, definition.period);
  const versions = storedFormatVersions(doc);
  const state: SequenceState = {
    id: key.id,
    name: key.name,
    scope: key.scope,
    owner: typeof doc.owner === 'string' ? doc.owner : null,
    ...definition,
    value,
    next,
    gapless: definition.holdSeconds !== null,
    currentPeriod,
    formattedValue: null,
    formattedNext: null,
    updatedAt: doc.updatedAt instanceof Date ? doc.updatedAt : null,
    drift: null,
  };
  if (versions.length > 0) {
    // A fixed definition with display formats (`userid`): each value in the version covering it.
    state.format = versions[versions.length - 1].format;
    state.formattedValue = value < definition.start ? null : formatByVersion(versions, value);
    state.formattedNext = next === null ? null : formatByVersion(versions, next);
  } else if (definition.format !== null && (definition.period === null || currentPeriod !== null)) {
    const parts = parseFormat(definition.format, definition.period);
    if (value >= definition.start) {
      state.formattedValue = formatValue(parts, value, currentPeriod);
    }
    if (next !== null) state.formattedNext = formatValue(parts, next, currentPeriod);
  }
  return state;
}

/** The state of a sequence nobody has used yet (no document): nothing issued. */
export function unusedState(key: ResolvedKey, definition: SequenceDefinition): SequenceState {
  const value = definition.start - definition.step;
  return {
    id: key.id,
    name: key.name,
    scope: key.scope,
    owner: null,
    ...definition,
    value,
    next: definition.start,
    gapless: definition.holdSeconds !== null,
    currentPeriod: null,
    formattedValue: null,
    formattedNext:
      definition.format === null || definition.period !== null
        ? null
        : formatValue(parseFormat(definition.format, null), definition.start, null),
    updatedAt: null,
    drift: null,
  };
}

/** The fields a counter gets when it is first written, besides `seq`. */
export function definitionFields(
  key: ResolvedKey,
  definition: SequenceDefinition,
  owner: string | null = null,
) {
  return {
    name: key.name,
    ...(key.scope === null ? {} : { scope: key.scope }),
    ...(owner === null ? {} : { owner }),
    start: toLong(definition.start),
    step: definition.step,
    ...(definition.max === null ? {} : { max: toLong(definition.max) }),
    ...(definition.holdSeconds === null ? {} : { holdSeconds: definition.holdSeconds }),
    ...(definition.format === null ? {} : { format: definition.format }),
    ...(definition.period === null || definition.timeZone === null
      ? {}
      : { period: definition.period, timeZone: definition.timeZone }),
  };
}
