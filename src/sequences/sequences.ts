/**
 * `Sequences`: the only code that touches the `counters` collection.
 *
 * Contract and invariants:
 * - Allocating `count` values is one `findOneAndUpdate` in the steady state: `$inc` of
 *   `d = step * count` on the counter, upserting only sequences with the implicit definition
 *   (start 1, step 1, no max) as the tutorial does. The filter guards with the cached definition:
 *   `{ _id, step, max (or no max), start: Int64, seq: Int64 <= limit - d }`. (Not `$expr`
 *   comparing `seq` with the stored `max`: MongoDB refuses `$expr` in an upsert's query, error 224,
 *   SERVER-59704. Since a definition never changes, filtering on the cached `step` and `max` is the
 *   same guard.) The returned range is exactly the values that `$inc` consumed, so two allocations
 *   never share a value, across processes too. Only a counter that reads as a sequence matches, so
 *   the state after an `$inc` always reads too: a corrupt counter is refused before anything moves.
 * - A refused allocation (duplicate key from the upsert, or no match) consumes nothing; one read
 *   tells whether it was the tutorial's upsert race (retry), a definition this process had not seen
 *   (refresh the cache, retry), a tutorial-era counter or one typed in mongosh (rewrite it with
 *   Int64 + definition, retry), a corrupt one (`SequenceCorruptError`) or exhaustion
 *   (`SequenceExhaustedError`). Retries are bounded.
 * - `seq`, `start` and `max` are always written as Int64, never as doubles.
 * - Definitions never change once a counter exists, so each process caches them; a counter
 *   deleted and re-created elsewhere with another step or max is caught by the filter, which names
 *   both (values always come from the stored `seq`, so a different `start` needs no catching).
 * - A gapless sequence (`holdSeconds` stored) is never `$inc`ed here: the allocation filter
 *   excludes it, and allocations of one go to `reservations` (./reservations.ts), which owns its
 *   `seq` and `pending`; `setValue` refuses it (any set would open a hole or reissue a value).
 * - A periodic sequence (`period` stored) is advanced by a pipeline-style update in which the
 *   database's clock decides the period (./guarded-increment.ts). `setValue` refuses it; `advance`
 *   moves one named period's counter forward, never into a period the clock has not reached.
 * - A period that ends is copied into `sequencePeriods` before the next one may begin
 *   (./periods.ts), so each ended period's last value stays readable (`pastPeriods`).
 * - `addFormatVersion` (admin, `userid`) only appends a format for values nobody holds yet, so no
 *   value issued before it is written differently afterwards (./format.ts).
 * - `releaseUnused` is the one write that moves `seq` down without an admin: only a range that is
 *   still the newest of its sequence (`seq` equals its `last`), which nobody else can hold.
 * - Every write uses the configured write concern (WRITE_CONCERN), so a failover cannot roll
 *   back an acknowledged `$inc` and reissue its values. Every command carries `maxTimeMS`
 *   (the driver ignores `timeoutMS`); the client's socket timeout bounds the network side.
 */
import type {
  ClientSession,
  Db,
  Document,
  Filter,
  Long,
  UpdateFilter,
  WriteConcernSettings,
} from 'mongodb';
import {
  afterCommit,
  beforeWrite,
  boundedCollection,
  countCommand,
  isDuplicateKeyError,
  type BoundedCollection,
  type CommandTally,
  type WriteOptions,
} from '../database/index';
import { PAGE_SIZE, SEQUENCE_FORMAT } from '../limits';
import {
  type CounterDocument,
  type SequenceState,
  definitionFields,
  definitionOf,
  isLegacyCounter,
  storedFormatVersions,
  storedInteger,
  storedPeriodKey,
  storedSeq,
  toLong,
  toState,
} from './counter-document';
import { type FormatVersion, validateFormatFrom } from './format';
import {
  type DefinitionInput,
  IMPLICIT_DEFINITION,
  type SequenceDefinition,
  assertAllocationCount,
  assertSequenceValue,
  differingField,
  isImplicitDefinition,
  limitOf,
  validateDefinition,
} from './definition';
import {
  BadUserInputError,
  SequenceContentionError,
  SequenceExhaustedError,
  SequenceNotFoundError,
} from './errors';
import { moveOwnedCounters, type NamespaceMove } from './namespaces';
import { pageOfSequences, type SequencePage, type SequencePageRequest } from './pages';
import { SequenceChanges } from './changes';
import { GuardedIncrements } from './guarded-increment';
import { type Reservation, Reservations } from './reservations';
import { type ResolvedKey, type SequenceKey, describeKey, resolveKey } from './keys';
import {
  endedPeriodWhen,
  isPeriodKey,
  NO_ENDED_PERIOD,
  type PeriodClock,
  PERIOD_KEY_EXAMPLE,
  PERIOD_KEY_SHAPE,
  periodClockOf,
  periodNow,
} from './periods';

export interface AllocatedRange {
  first: number;
  last: number;
  step: number;
  count: number;
}

/** An ended period of a periodic sequence and the last value issued in it. */
export interface PastPeriod {
  period: string;
  value: number;
}

export interface PastPeriodRequest {
  /** Only periods after this one (the previous page's last). */
  after: string | null;
  /** At most this many: 1 to 100. */
  first: number;
}

/** A document of `sequencePeriods`: `_id` is `<sequence id>:<period>`. */
interface PeriodDocument {
  _id: string;
  sequence: string;
  period: string;
  value: Long | number;
}

/** Who may touch a counter in one call: a client only its own (`owner`), nobody may create. */
export interface OwnerGuard extends WriteOptions {
  /** Only the counter whose `owner` is this client; undefined: any counter (admin). */
  owner?: string;
}

interface AllocationGuard extends OwnerGuard {
  /** Whether an absent counter with the implicit definition is created (`userid`, the tutorial's way). */
  mayCreate: boolean;
  tally?: CommandTally;
  /** The transaction the `$inc` belongs to (TRANSACTION): rolled back with it. */
  session?: ClientSession;
}

/** How `setValue` may move a counter, besides the range of its definition. */
export interface SetGuard extends OwnerGuard {
  /** Create an absent counter with the implicit definition (default); false: SEQUENCE_NOT_FOUND. */
  mayCreate?: boolean;
  /** Refuse a value below the last one issued (values handed out may live only in memory). */
  forwardOnly?: boolean;
}

/** Held values as a range, when they are `first`, `first + step`, ... of one period; else null. */
function rangeOf(reservations: Reservation[], step: number): AllocatedRange | null {
  const [first] = reservations;
  const consecutive = reservations.every(
    (held, i) => held.period === first.period && held.value === first.value + i * step,
  );
  if (!consecutive) return null;
  const count = reservations.length;
  return { first: first.value, last: first.value + (count - 1) * step, step, count };
}

/** The values of a range, ascending: `first`, `first + step`, ..., `last`. */
export function valuesOf(range: AllocatedRange): number[] {
  // A plain loop: `Array.from({ length })` walks its array-like generically, about 2 µs even for
  // the one value of a `createUser` (seen in the CPU profile).
  const values = new Array<number>(range.count);
  for (let i = 0; i < range.count; i += 1) values[i] = range.first + i * range.step;
  return values;
}

export interface SequencesOptions {
  /** WRITE_CONCERN (src/config.ts holds every default). */
  writeConcern: WriteConcernSettings;
  /**
   * Called once per successful write of a counter document (allocation, repair, set, create); for
   * an allocation inside a transaction, once it commits, never when it is rolled back.
   */
  onCounterWrite?: (key: SequenceKey) => void;
  /**
   * Server-side time limit of every command (DB_TIMEOUT_MS). The mongodb driver 7 ignores
   * `timeoutMS`, so this and the client's `socketTimeoutMS` are what bound a call.
   */
  maxTimeMS: number;
}

/** Upsert races and cache refreshes settle within one or two rounds; more means contention. */
const MAX_ATTEMPTS = 5;

function contention(key: ResolvedKey, what: string): SequenceContentionError {
  return new SequenceContentionError(
    `${what} sequence ${describeKey(key)} met concurrent writers ${MAX_ATTEMPTS} times in a row; please retry.`,
  );
}

export class Sequences {
  /** The values of gapless sequences, from allocation to confirmation. */
  readonly reservations: Reservations;
  /** Each counter's changes as they happen (a change stream). */
  readonly changes: SequenceChanges;
  private readonly counters: BoundedCollection<CounterDocument>;
  /** The last value of each ended period of each periodic sequence (./periods.ts). */
  private readonly periods: BoundedCollection<PeriodDocument>;
  private readonly definitions = new Map<string, SequenceDefinition>();
  private readonly increments: GuardedIncrements;
  private readonly onCounterWrite?: (key: SequenceKey) => void;

  constructor(db: Db, options: SequencesOptions) {
    this.counters = boundedCollection(
      db.collection<CounterDocument>('counters', {
        writeConcern: options.writeConcern,
        promoteLongs: false,
      }),
      options.maxTimeMS,
    );
    this.periods = boundedCollection(
      db.collection<PeriodDocument>('sequencePeriods', {
        writeConcern: options.writeConcern,
        promoteLongs: false,
      }),
      options.maxTimeMS,
    );
    this.onCounterWrite = options.onCounterWrite;
    this.reservations = new Reservations(
      this.counters,
      db,
      options.writeConcern,
      options.maxTimeMS,
      (key, doc) => this.wrote(key, doc),
    );
    this.changes = new SequenceChanges(this.counters.collection, options.maxTimeMS);
    this.increments = new GuardedIncrements(options.maxTimeMS);
  }

  /**
   * Consumes `count` values (1 to 10,000) in one atomic step: `first`, `first + step`, ..., `last`.
   * An absent counter is created with the implicit definition (how `userid` comes to exist).
   * With a `session` in a transaction, the `$inc` belongs to it (the read explaining a refusal
   * does not: see `explainRefusal`).
   */
  async allocate(
    key: SequenceKey,
    count = 1,
    tally?: CommandTally,
    session?: ClientSession,
  ): Promise<AllocatedRange> {
    const resolved = resolveKey(key);
    const allocated = await this.allocateFrom(resolved, count, { mayCreate: true, tally, session });
    // Only an existing gapless sequence answers without a range, and `mayCreate` never reaches one.
    if (allocated.range === null) throw new SequenceNotFoundError(describeKey(resolved));
    return allocated.range;
  }

  /**
   * Like `allocate`, for a sequence that must already exist (and belong to `guard.owner` when
   * given): anything else is SEQUENCE_NOT_FOUND and nothing is created. Also answers the counter's
   * state after the allocation, and for a gapless sequence the reservations to confirm, one per
   * value (then `range` is null when the values are not `first, first + step, ...` of one period:
   * released values handed out again among new ones).
   */
  async allocateExisting(
    key: SequenceKey,
    count: number,
    guard: OwnerGuard = {},
  ): Promise<{
    range: AllocatedRange | null;
    sequence: SequenceState;
    reservations: Reservation[];
  }> {
    const resolved = resolveKey(key);
    const allocated = await this.allocateFrom(resolved, count, { ...guard, mayCreate: false });
    return { ...allocated, sequence: toState(resolved, allocated.doc) };
  }

  private async allocateFrom(
    resolved: ResolvedKey,
    count: number,
    guard: AllocationGuard,
  ): Promise<{ range: AllocatedRange | null; doc: CounterDocument; reservations: Reservation[] }> {
    assertAllocationCount(count);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      beforeWrite(guard);
      const definition = this.definitions.get(resolved.id) ?? IMPLICIT_DEFINITION;
      if (definition.holdSeconds !== null && !guard.mayCreate) {
        const reserved = await this.reservations.reserve(resolved, count, guard);
        if (reserved !== null) {
          const { reservations, doc } = reserved;
          return { range: rangeOf(reservations, definition.step), doc, reservations };
        }
        this.definitions.delete(resolved.id); // no longer gapless: re-read by the next attempt
        continue;
      }
      const delta = definition.step * count;
      let doc: CounterDocument | null;
      // Awaited here rather than in a method of its own: an async layer around the command cost
      // every allocation a promise and a turn of microtasks more.
      try {
        doc = await this.counters.collection.findOneAndUpdate(
          ...this.incrementCommand(resolved, definition, delta, guard),
        );
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        doc = null;
      }
      if (doc !== null) {
        // The first allocation of a period copies the ended one (./periods.ts); outside any
        // transaction (periodic sequences never feed one).
        if (doc.endedPeriod !== undefined && guard.session === undefined) {
          // The values are issued: a failed copy must not lose them to an error. The next
          // allocation copies it, and no period ends before it does.
          await this.archiveEndedPeriod(resolved, doc).catch(() => undefined);
        }
        const last = storedSeq(doc);
        // In a transaction, the write is only one once committed (a rolled-back `$inc` is none).
        afterCommit(guard.session, () => this.wrote(resolved, doc));
        const range = { first: last - delta + definition.step, last, step: definition.step, count };
        return { range, doc, reservations: [] };
      }
      await this.explainRefusal(resolved, definition, delta, guard);
    }
    throw contention(resolved, 'Allocating from');
  }

  /**
   * The value the next allocation will return; nothing is written. An absent counter answers the
   * implicit definition's start, unless `guard.mayCreate` is false (then SEQUENCE_NOT_FOUND, as for
   * a counter of another owner than `guard.owner`).
   */
  async peekNext(key: SequenceKey, guard: Omit<SetGuard, 'forwardOnly'> = {}): Promise<number> {
    const resolved = resolveKey(key);
    const doc = await this.read(resolved);
    if (doc !== null && guard.owner !== undefined && doc.owner !== guard.owner) {
      throw new SequenceNotFoundError(describeKey(resolved));
    }
    if (doc === null) {
      if (guard.mayCreate === false) throw new SequenceNotFoundError(describeKey(resolved));
      return IMPLICIT_DEFINITION.start;
    }
    const state = toState(resolved, doc);
    if (state.next === null) throw exhausted(resolved, state, 1);
    return state.next;
  }

  /** The display formats of a sequence whose definition is fixed (`addFormatVersion`); [] if none. */
  async formatVersions(key: SequenceKey): Promise<FormatVersion[]> {
    const doc = await this.read(resolveKey(key));
    return doc === null ? [] : storedFormatVersions(doc);
  }

  /**
   * The key of the period the database's clock (`$$NOW`) is in now, for `clock`'s period and zone:
   * the period an allocation of `key` would number in now, unless a later one is stored. Null when
   * its counter is gone. One aggregate of the counter by `_id`; nothing is written.
   */
  async clockPeriod(key: SequenceKey, clock: PeriodClock): Promise<string | null> {
    const [found] = await this.counters.collection
      .aggregate<{ period: string }>(
        [
          { $match: { _id: resolveKey(key).id } },
          { $project: { _id: 0, period: periodNow(clock) } },
        ],
        this.counters.options(),
      )
      .toArray();
    return found?.period ?? null;
  }

  async get(key: SequenceKey): Promise<SequenceState | null> {
    const resolved = resolveKey(key);
    const doc = await this.read(resolved);
    return doc === null ? null : toState(resolved, doc);
  }

  /** A page of counters, by name then scope (./pages.ts). */
  page(request: SequencePageRequest): Promise<SequencePage> {
    return pageOfSequences(this.counters, request);
  }

  /** Moves 0.3's client-owned counters into their owner's namespace (./namespaces.ts). */
  moveOwnedCounters(): Promise<NamespaceMove> {
    return moveOwnedCounters(this.counters);
  }

  /**
   * Defines a sequence, owned by the client whose namespace its key names (`input.owner`; none in
   * the shared namespace). Creating it again with the same definition returns it (also when it
   * was created implicitly with the defaults); a different definition is BAD_USER_INPUT naming the
   * first differing field, since definitions never change.
   */
  async create(
    input: SequenceKey & DefinitionInput,
    options: WriteOptions = {},
  ): Promise<SequenceState> {
    const resolved = resolveKey(input);
    const definition = validateDefinition(input);
    const owner = resolved.owner;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const doc: CounterDocument = {
        _id: resolved.id,
        ...definitionFields(resolved, definition, owner),
        seq: toLong(definition.start - definition.step),
        updatedAt: new Date(),
      };
      beforeWrite(options);
      try {
        await this.counters.collection.insertOne(doc, this.counters.options());
        this.wrote(resolved, doc);
        return toState(resolved, doc);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
      const existing = await this.read(resolved);
      if (existing === null) continue;
      const stored = definitionOf(existing);
      this.definitions.set(resolved.id, stored);
      if (owner !== null && existing.owner !== owner) {
        // Only a counter written by hand sits in a client's namespace with another owner: the
        // same answer as any other refusal of the name, nothing of that counter.
        throw new BadUserInputError(
          `The name of sequence ${describeKey(resolved)} is not available; choose another name or scope.`,
          { field: 'name' },
        );
      }
      const field = differingField(stored, definition);
      if (field === null) return toState(resolved, existing);
      throw new BadUserInputError(
        `Sequence ${describeKey(resolved)} already exists with ${field} ${stored[field] ?? 'unset'}; a definition cannot be changed.`,
        { field },
      );
    }
    throw contention(resolved, 'Creating');
  }

  /**
   * Sets the last issued value, so the next allocation returns `value + step`. `value` must lie
   * from `start - step` (nothing issued) to `max`; `guard` restricts it further (owner, forward
   * only, existing only). The write is a compare-and-set on the value read, so an allocation in
   * between makes it check again rather than overwrite blindly.
   */
  async setValue(key: SequenceKey, value: number, guard: SetGuard = {}): Promise<SequenceState> {
    const resolved = resolveKey(key);
    assertSequenceValue(value, 'value');
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const { current, definition } = await this.readToMove(
        resolved,
        guard,
        'setting it would open a hole or issue a confirmed value again',
      );
      const lowest = definition.start - definition.step;
      const highest = limitOf(definition);
      if (value < lowest || value > highest) {
        throw new BadUserInputError(
          `value must be from ${lowest} (nothing issued yet) to ${highest} for sequence ${describeKey(resolved)}.`,
          { field: 'value' },
        );
      }
      if (guard.forwardOnly && current !== null && value < storedSeq(current)) {
        throw new BadUserInputError(
          `Sequence ${describeKey(resolved)} only moves forward: it has issued up to ${storedSeq(current)}, and values handed out may live only in a process's memory, so a lower value could be issued twice.`,
          { field: 'value' },
        );
      }
      beforeWrite(guard);
      const written = await this.move(
        resolved,
        current === null ? { _id: resolved.id } : { _id: resolved.id, seq: current.seq },
        {
          $set: {
            ...definitionFields(resolved, definition),
            seq: toLong(value),
            updatedAt: new Date(),
          },
        },
        current === null,
      );
      if (written !== null) return written;
    }
    throw contention(resolved, 'Setting');
  }

  /**
   * Moves the counter forward to at least `to` (`$max`), never back, so the next allocation returns
   * a value above it: after an import of values issued elsewhere. Idempotent. `to` must not pass
   * the sequence's limit; a gapless sequence is refused (the values skipped would be holes nobody
   * can confirm). An absent counter is created with the implicit definition unless
   * `guard.mayCreate` is false.
   */
  async advance(
    key: SequenceKey,
    to: number,
    guard: Omit<SetGuard, 'forwardOnly'> = {},
    period: string | null = null,
  ): Promise<SequenceState> {
    const resolved = resolveKey(key);
    assertSequenceValue(to, 'to');
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const { current, definition } = await this.readToMove(
        resolved,
        guard,
        'the values advancing it would skip are holes nobody could confirm',
        true,
      );
      if (to > limitOf(definition)) {
        throw new BadUserInputError(
          `to must be at most ${limitOf(definition)}, the largest value sequence ${describeKey(resolved)} may issue.`,
          { field: 'to' },
        );
      }
      const clock = periodClockOf(definition);
      if (clock !== null || period !== null) {
        return this.advancePeriod(resolved, definition, clock, to, period, guard);
      }
      beforeWrite(guard);
      const written = await this.move(
        resolved,
        { _id: resolved.id },
        {
          $max: { seq: toLong(to) },
          $set: { updatedAt: new Date() },
          ...(current === null ? { $setOnInsert: definitionFields(resolved, definition) } : {}),
        },
        current === null,
      );
      if (written !== null) return written;
    }
    throw contention(resolved, 'Advancing');
  }

  /**
   * `advance` of a periodic sequence: the counter of `period` moves forward to at least `to`, in
   * one pipeline-style update. A period after the stored one becomes the counter's (restarted at
   * `to`); the stored one moves up to `to`; an earlier one is answered as it is (nothing will be
   * numbered in it again). A period the database's clock has not reached is refused: the values
   * allocated until then would be numbered in it.
   */
  private async advancePeriod(
    resolved: ResolvedKey,
    definition: SequenceDefinition,
    clock: PeriodClock | null,
    to: number,
    period: string | null,
    guard: WriteOptions,
  ): Promise<SequenceState> {
    if (clock === null || period === null || !isPeriodKey(clock.period, period)) {
      throw new BadUserInputError(
        clock === null
          ? `Sequence ${describeKey(resolved)} has no period: leave period out.`
          : `Sequence ${describeKey(resolved)} restarts every period: give the period the imported values belong to, written ${PERIOD_KEY_EXAMPLE[clock.period]}.`,
        { field: 'period' },
      );
    }
    const later = { $gt: [period, { $ifNull: ['$currentPeriod', ''] }] };
    const below = { $and: [{ $eq: [period, '$currentPeriod'] }, { $lt: ['$seq', toLong(to)] }] };
    const fresh = toLong(Math.max(definition.start - definition.step, to));
    const reached = { $lte: [period, periodNow(clock)] };
    const archived = { $or: [{ $not: [later] }, NO_ENDED_PERIOD] };
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      beforeWrite(guard);
      const written = await this.move(
        resolved,
        { _id: resolved.id, $expr: { $and: [reached, archived] } },
        [
          {
            $set: {
              currentPeriod: { $cond: [later, period, '$currentPeriod'] },
              endedPeriod: endedPeriodWhen(later),
              seq: { $cond: [later, fresh, { $cond: [below, toLong(to), '$seq'] }] },
              updatedAt: '$$NOW',
            },
          },
        ],
        false,
      );
      if (written !== null) {
        const doc = await this.read(resolved);
        if (doc?.endedPeriod !== undefined) await this.archiveEndedPeriod(resolved, doc);
        return written;
      }
      const current = await this.read(resolved);
      if (current === null) throw new SequenceNotFoundError(describeKey(resolved));
      if (current.endedPeriod === undefined) break;
      await this.archiveEndedPeriod(resolved, current);
    }
    throw new BadUserInputError(
      `Period ${period} has not begun on the database's clock: values allocated until then would be numbered in it.`,
      { field: 'period' },
    );
  }

  /**
   * Adds a display format to a sequence whose definition is fixed (`userid`): it writes the
   * values from the first one nobody holds yet, above both the counter and `floor` (the largest
   * value stored elsewhere), and the counter moves up to just below it (`$max`) in the same write,
   * so every later allocation is written in it and every earlier value keeps its writing. The
   * format already newest is answered as it is (idempotent). A compare-and-set on the formats and
   * a counter still below that first value: an allocation in between makes it read again.
   */
  async addFormatVersion(
    key: SequenceKey,
    format: string,
    floor: number,
    options: WriteOptions = {},
  ): Promise<SequenceState> {
    const resolved = resolveKey(key);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const current = await this.read(resolved);
      const definition = current === null ? IMPLICIT_DEFINITION : definitionOf(current);
      const versions = current === null ? [] : storedFormatVersions(current);
      if (versions.at(-1)?.format === format) return toState(resolved, current as CounterDocument);
      if (versions.length >= SEQUENCE_FORMAT.versions) {
        throw new BadUserInputError(
          `Sequence ${describeKey(resolved)} has had ${versions.length} formats, the most it keeps (each is read with every number it writes).`,
          { field: 'format' },
        );
      }
      const issued = Math.max(
        current === null ? definition.start - definition.step : storedSeq(current),
        floor,
      );
      // Values above the counter that a newer format was given were never issued: it covers them.
      const from = Math.max(issued + definition.step, versions.at(-1)?.from ?? -Infinity);
      validateFormatFrom(format, from);
      const kept = versions.filter((version) => version.from < from);
      beforeWrite(options);
      const written = await this.move(
        resolved,
        {
          _id: resolved.id,
          ...(current === null ? {} : { seq: { $lte: toLong(from - definition.step) } }),
          formats: current?.formats === undefined ? { $exists: false } : current.formats,
        },
        {
          $max: { seq: toLong(from - definition.step) },
          $set: {
            formats: [...kept, { from, format }].map((version) => ({
              from: toLong(version.from),
              format: version.format,
            })),
            updatedAt: new Date(),
          },
          ...(current === null ? { $setOnInsert: definitionFields(resolved, definition) } : {}),
        },
        current === null,
      );
      if (written !== null) return written;
    }
    throw contention(resolved, 'Formatting');
  }

  /**
   * Moves the counter up to at least `floor` (`$max`), never down: the repair when a value it issued
   * was already taken (an optimistic insert, imported data). Creates an implicit counter if absent.
   */
  async repairCounterDrift(
    key: SequenceKey,
    floor: number,
    tally?: CommandTally,
    options?: WriteOptions,
  ): Promise<void> {
    const resolved = resolveKey(key);
    assertSequenceValue(floor, 'floor');
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      beforeWrite(options);
      countCommand(tally);
      try {
        await this.counters.collection.updateOne(
          { _id: resolved.id },
          {
            $max: { seq: toLong(floor) },
            $set: { updatedAt: new Date() },
            $setOnInsert: definitionFields(resolved, IMPLICIT_DEFINITION),
          },
          this.counters.options({ upsert: true }),
        );
        this.onCounterWrite?.({ name: resolved.name, scope: resolved.scope });
        return;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    }
    throw contention(resolved, 'Repairing');
  }

  /**
   * Gives back a range this process allocated and never stored, when it is still the newest of its
   * sequence: a compare-and-set `seq == range.last` that moves `seq` down by what the range took.
   * True when the range was given back (its values will be issued again), false when the counter
   * has moved since (another allocation, a repair, a set): the range then stays a gap.
   *
   * Why it is safe: values are only given back from the top of the counter, so `seq` still being
   * `range.last` means every value issued after this range was given back too; nobody holds any of
   * them. The caller's duty is that none of the range's values was stored (or is in use) anywhere.
   * Under concurrency the compare fails and the gap stays; it never issues a value twice.
   */
  async releaseUnused(
    key: SequenceKey,
    range: AllocatedRange,
    tally?: CommandTally,
  ): Promise<boolean> {
    const resolved = resolveKey(key);
    countCommand(tally);
    const { modifiedCount } = await this.counters.collection.updateOne(
      { _id: resolved.id, seq: toLong(range.last) },
      { $inc: { seq: toLong(-range.step * range.count) }, $set: { updatedAt: new Date() } },
      this.counters.options(),
    );
    if (modifiedCount === 0) return false;
    this.onCounterWrite?.({ name: resolved.name, scope: resolved.scope });
    return true;
  }

  /**
   * The guarded `$inc`'s arguments (kept per shape by ./guarded-increment.ts), counted. Its answer
   * is null when the filter refused the counter, and a duplicate key when an upsert lost its race:
   * nothing was consumed either way. The range and `$exists` conditions are not copied into an
   * upserted document; `_id` and `step` are.
   */
  private incrementCommand(
    key: ResolvedKey,
    definition: SequenceDefinition,
    delta: number,
    guard: AllocationGuard,
  ): ReturnType<GuardedIncrements['command']> {
    // Only a counter not yet seen here may be absent: one this process wrote or read is updated
    // without `upsert` and its `$setOnInsert`. Removed since, it is refused (null), the refusal's
    // read forgets it, and the next attempt creates it.
    const upsert =
      guard.mayCreate && isImplicitDefinition(definition) && !this.definitions.has(key.id);
    countCommand(guard.tally);
    const shape = { key, definition, delta, owner: guard.owner, upsert };
    return this.increments.command(shape, new Date(), guard.session);
  }

  /** One read after a refused allocation: retry (possibly with a refreshed cache) or throw. */
  private async explainRefusal(
    key: ResolvedKey,
    definition: SequenceDefinition,
    delta: number,
    guard: AllocationGuard,
  ): Promise<void> {
    countCommand(guard.tally);
    // Outside any transaction: a refused upsert (E11000) has aborted it, and the explanation
    // (a corrupt counter: SEQUENCE_CORRUPT) must not be lost to NoSuchTransaction.
    const doc = await this.read(key);
    if (doc === null || (guard.owner !== undefined && doc.owner !== guard.owner)) {
      if (!guard.mayCreate) throw new SequenceNotFoundError(describeKey(key));
      // Removed since this process cached it: the next attempt creates it implicitly.
      this.definitions.delete(key.id);
      return;
    }
    if (isLegacyCounter(doc)) {
      beforeWrite(guard);
      await this.upgradeLegacyCounter(key, doc, guard.tally);
      return;
    }
    const stored = definitionOf(doc);
    this.definitions.set(key.id, stored);
    if (differingField(stored, definition) !== null) return;
    if (doc.endedPeriod !== undefined) {
      // A new period waits until the last ended one is archived (./periods.ts): archive, retry.
      await this.archiveEndedPeriod(key, doc);
      return;
    }
    if (storedSeq(doc) + delta > limitOf(stored)) {
      throw exhausted(key, toState(key, doc), delta / stored.step);
    }
    // Otherwise it was the upsert race: the counter exists now, so the retry increments it.
  }

  /**
   * Rewrites a counter of another shape (see `isLegacyCounter`) with Int64s and its definition
   * (the defaults for what it lacks); a value that is not a whole number throws SEQUENCE_CORRUPT
   * and nothing is written.
   */
  private async upgradeLegacyCounter(
    key: ResolvedKey,
    doc: CounterDocument,
    tally: CommandTally | undefined,
  ): Promise<void> {
    const definition = definitionOf(doc);
    const seq = toLong(storedSeq(doc));
    countCommand(tally);
    await this.counters.collection.updateOne(
      { _id: key.id, seq: doc.seq },
      {
        $set: { ...definitionFields(key, definition), seq, updatedAt: new Date() },
        // A stored `max: null` means no max, which the allocation filter knows as an absent one.
        ...(doc.max === null ? { $unset: { max: '' as const } } : {}),
      },
      this.counters.options(),
    );
  }

  /**
   * The counter `setValue` or `advance` is about to move, and its definition (the implicit one
   * when absent): SEQUENCE_NOT_FOUND when absent and `guard.mayCreate` is false or another owner's,
   * BAD_USER_INPUT when gapless (`why` says what moving it would do), or periodic unless
   * `periodic` allows it.
   */
  private async readToMove(
    resolved: ResolvedKey,
    guard: Omit<SetGuard, 'forwardOnly'>,
    why: string,
    periodic = false,
  ): Promise<{ current: CounterDocument | null; definition: SequenceDefinition }> {
    const current = await this.read(resolved);
    if (
      (current === null && guard.mayCreate === false) ||
      (current !== null && guard.owner !== undefined && current.owner !== guard.owner)
    ) {
      throw new SequenceNotFoundError(describeKey(resolved));
    }
    const definition = current === null ? IMPLICIT_DEFINITION : definitionOf(current);
    if (definition.holdSeconds !== null) {
      throw new BadUserInputError(`Sequence ${describeKey(resolved)} is gapless: ${why}.`, {
        field: 'name',
      });
    }
    if (definition.period !== null && !periodic) {
      throw new BadUserInputError(
        `Sequence ${describeKey(resolved)} restarts every period, which the database's clock decides at each allocation: its counter cannot be set (advanceSequence moves one period's counter forward).`,
        { field: 'name' },
      );
    }
    return { current, definition };
  }

  /**
   * One write of `setValue` or `advance`: the counter after it, or null when nothing matched or an
   * upsert lost its race (the caller reads again).
   */
  private async move(
    resolved: ResolvedKey,
    filter: Filter<CounterDocument>,
    update: UpdateFilter<CounterDocument> | Document[],
    upsert: boolean,
  ): Promise<SequenceState | null> {
    let written: CounterDocument | null = null;
    try {
      written = await this.counters.collection.findOneAndUpdate(
        filter,
        update,
        this.counters.options({ upsert, returnDocument: 'after' as const }),
      );
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    if (written === null) return null;
    this.wrote(resolved, written);
    return toState(resolved, written);
  }

  /**
   * The ended periods of a periodic sequence and the last value issued in each, oldest first, a
   * page of at most `first` (1 to 100) after the period `after`; the ended period a counter still
   * holds is archived first, so the page is complete.
   */
  async pastPeriods(
    key: SequenceKey,
    request: PastPeriodRequest,
  ): Promise<{ periods: PastPeriod[]; hasMore: boolean }> {
    const resolved = resolveKey(key);
    const { first, after } = request;
    if (!Number.isInteger(first) || first < 1 || first > PAGE_SIZE.max) {
      throw new BadUserInputError(`first must be a whole number from 1 to ${PAGE_SIZE.max}.`, {
        field: 'first',
      });
    }
    if (after !== null && !PERIOD_KEY_SHAPE.test(after)) {
      throw new BadUserInputError(
        'after must be a period key, as `2026`, `2026-12`, `2026-12-31`.',
        {
          field: 'after',
        },
      );
    }
    const doc = await this.read(resolved);
    if (doc?.endedPeriod !== undefined) await this.archiveEndedPeriod(resolved, doc);
    // `<sequence id>:<period>`: ids sort by sequence, then period in time order; `;` follows `:`.
    const found = await this.periods.collection
      .find(
        { _id: { $gt: `${resolved.id}:${after ?? ''}`, $lt: `${resolved.id};` } },
        this.periods.options({ sort: { _id: 1 as const }, limit: first + 1 }),
      )
      .toArray();
    return {
      periods: found.slice(0, first).map((entry) => ({
        period: entry.period,
        value: storedInteger(
          doc ?? { _id: resolved.id, seq: 0 },
          'sequencePeriods.value',
          entry.value,
        ),
      })),
      hasMore: found.length > first,
    };
  }

  /**
   * Copies the period a counter ended into `sequencePeriods` (`$max`: idempotent, and an ended
   * period never changes), then clears it from the counter if it still holds that one.
   */
  private async archiveEndedPeriod(key: ResolvedKey, doc: CounterDocument): Promise<void> {
    const ended = doc.endedPeriod;
    if (ended === undefined) return;
    const value = toLong(storedInteger(doc, 'endedPeriod.value', ended.value));
    // Read defensively, as `currentPeriod` is: SEQUENCE_CORRUPT unless a key of its period.
    storedPeriodKey({ ...doc, currentPeriod: ended.period }, definitionOf(doc).period);
    await this.periods.collection.updateOne(
      { _id: `${key.id}:${ended.period}` },
      { $max: { value }, $setOnInsert: { sequence: key.id, period: ended.period } },
      this.periods.options({ upsert: true }),
    );
    await this.counters.collection.updateOne(
      { _id: key.id, 'endedPeriod.period': ended.period },
      { $unset: { endedPeriod: '' } },
      this.counters.options(),
    );
  }

  private read(key: ResolvedKey): Promise<CounterDocument | null> {
    return this.counters.collection.findOne({ _id: key.id }, this.counters.options());
  }

  private wrote(key: ResolvedKey, doc: CounterDocument): void {
    this.definitions.set(key.id, definitionOf(doc));
    this.onCounterWrite?.({ name: key.name, scope: key.scope });
  }
}

function exhausted(key: ResolvedKey, state: SequenceState, count: number): SequenceExhaustedError {
  return new SequenceExhaustedError(
    `Sequence ${describeKey(key)} cannot issue ${count === 1 ? 'another value' : `${count} more values`}: its ${state.max === null ? 'limit' : 'max'} is ${limitOf(state)} and the last value issued is ${state.value}. Nothing was consumed.`,
  );
}
