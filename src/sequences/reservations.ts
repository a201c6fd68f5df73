/**
 * `Reservations`: the values of gapless sequences, from allocation to confirmation. A gapless
 * sequence is a counter document with `holdSeconds` (./definition.ts); each value it issued is one
 * small document of the `gapless_values` collection, which this module alone writes.
 *
 * Storage: `{ _id: "<sequence id>:<value>", sequence, value: Int64, token, expiresAt }` while the
 * value waits for its confirmation (held by `token` until `expiresAt`; released: `expiresAt` the
 * epoch), `{ _id, sequence, value, token, confirmedAt }` once confirmed. A settled value keeps the
 * token that settled it, so settling it again with that token answers it settled (a retry is
 * safe) and another token learns nothing but RESERVATION_NOT_FOUND. (Values settled by earlier
 * versions carry `token: null` or no token: every token is refused them.) A value document
 * is never deleted: its `_id` is what makes a value issued once. A periodic sequence's values
 * carry their period (./periods.ts): `_id: "<sequence id>:<period>:<value>"` and `period`, so each
 * period has values `start`, `start + step`, ... of its own.
 *
 * Contract and invariants:
 * - A value is issued exactly when its document exists; a new value is `top + step`, where `top`
 *   is a value known to be issued, and its insert is the one atomic step that issues it (a
 *   duplicate key: somebody else issued it, try the next). So every value from `start` to the
 *   largest issued one has a document, confirmed or waiting: whatever fails and wherever a process
 *   dies, there is no hole the service does not list, and `gaps` lists the waiting ones.
 * - The counter's `seq` follows the largest issued value (`$max` after each insert), a hint that
 *   may lag by the inserts a crash interrupted; nothing relies on it being exact, since an insert
 *   of an issued value fails. Its `freeCheckAt` is never later than the expiry of any waiting
 *   value (`$min` with each new hold, the epoch on a release, recomputed by a search that found
 *   nothing free, compared on `seq` and `releases` so a concurrent change is never overwritten),
 *   so while it lies ahead no value can be free and an allocation looks for none.
 * - An allocation hands out the lowest free value (released, or its hold expired) before any new
 *   one, so once every client has confirmed or released what it took and the free values were
 *   handed out again, the confirmed values are start..top with no hole. The price: values are not
 *   issued in time order, and a client that writes its document after its hold expired may find
 *   its value taken by another (its confirmation then fails with RESERVATION_NOT_FOUND).
 * - A confirmation succeeds only for the token that holds the value now, also past its expiry as
 *   long as nobody took the value: a value is confirmed at most once. Each value is settled by one
 *   update matching its `_id` and token, so settling many at once is atomic per value, never
 *   across values: two callers settling overlapping batches each settle a value or are refused it.
 *   Within one batch a reservation is settled and answered once, at the first id naming it, and
 *   any later id naming it is refused alone (BAD_USER_INPUT), so no answer counts a value twice.
 * - Periods: before it issues anything, an allocation of a periodic sequence lets the database's
 *   clock move the counter's `currentPeriod` forward (one pipeline-style update with `$$NOW`,
 *   restarting `seq` in a new period); a new value is issued in the period that update answered.
 *   Free values are handed out oldest period first, so a value of a period that has ended, released
 *   or expired, is numbered again in its own period: each period's confirmed values end up
 *   start..top with no hole, and, as for any gapless sequence, not in time order.
 * - Every change names its value documents and the counter by `_id`, so it costs the same few
 *   commands however many values are held, and a batch costs them once, not per value: allocating
 *   new values 3 (read the counter, one insert of them all, `$max`), confirming 2 (read the
 *   counter, one update of them all; a read of them when some were refused or settled before),
 *   releasing 3. Looking for free values (only once `freeCheckAt` has passed) is one indexed
 *   query on MongoDB (`{ sequence, expiresAt }`) and one update of those found.
 * - In one process, allocations of one sequence take turns (a lock per sequence), so they do not
 *   insert the same new value at once; across instances a duplicate key moves on to the next
 *   value, bounded, then ID_CONTENTION with nothing issued. Every command carries `maxTimeMS` and
 *   the configured write concern.
 */
import { randomBytes } from 'node:crypto';
import { Mutex } from 'async-mutex';
import type { Db, Sort, WriteConcernSettings } from 'mongodb';
import { GAPS, RESERVATIONS_PER_REQUEST } from '../limits';
import type { DomainError } from '../errors';
import {
  beforeWrite,
  boundedCollection,
  isDuplicateKeyError,
  type BoundedCollection,
  type WriteOptions,
} from '../database/index';
import {
  type CounterDocument,
  type SequenceState,
  definitionOf,
  storedInteger,
  storedPending,
  storedPeriodKey,
  storedSeq,
  toLong,
  toState,
} from './counter-document';
import { limitOf, type SequenceDefinition } from './definition';
import {
  BadUserInputError,
  SequenceContentionError,
  SequenceExhaustedError,
  SequenceNotFoundError,
  ReservationNotFoundError,
} from './errors';
import { type GapPage, type GapRequest, assertGapRequest, gapPage } from './gaps';
import { type ResolvedKey, describeKey, parseSequenceId } from './keys';
import {
  isPeriodKey,
  PERIOD_KEY_EXAMPLE,
  PERIOD_KEY_SHAPE,
  periodClockOf,
  periodNow,
  startsPeriod,
} from './periods';
import type { Long } from 'mongodb';

/** A value handed out by a gapless sequence, to be confirmed or released with `id`. */
export interface Reservation {
  /**
   * `<sequence id>:<value>:<token>` (`<sequence id>:<period>:<value>:<token>` for a periodic
   * sequence): names the sequence, the value and who holds it.
   */
  id: string;
  value: number;
  /** The period the value counts in; null for a sequence without periods. */
  period: string | null;
  expiresAt: Date;
}

/** One issued value of a gapless sequence: waiting (`token`, `expiresAt`) or confirmed. */
interface ValueDocument {
  _id: string;
  sequence: string;
  /** A periodic sequence's period of the value. */
  period?: string;
  value: Long;
  token?: string | null;
  expiresAt?: Date;
  confirmedAt?: Date;
}

/** The order free values are handed out in: lowest first, and of a periodic sequence oldest period first. */
const BY_VALUE: Sort = { sequence: 1, value: 1 };
const BY_PERIOD_AND_VALUE: Sort = { sequence: 1, period: 1, value: 1 };

/** The index of unconfirmed values by expiry (sparse: confirmed values have no `expiresAt`). */
const FREE_VALUES_INDEX = 'sequence_expiresAt';

/** Values another instance issued first (duplicate keys) before ID_CONTENTION. */
const MAX_ATTEMPTS = 16;

/** What a released value's `expiresAt` (and a counter's `freeCheckAt` after a release) holds. */
const EPOCH = new Date(0);

/** A value document's `_id`: the value of the sequence, in its period if it has one. */
const valueId = (key: ResolvedKey, value: number, period: string | null) =>
  period === null ? `${key.id}:${value}` : `${key.id}:${period}:${value}`;

export class Reservations {
  private readonly locks = new Map<string, Mutex>();
  private readonly values: BoundedCollection<ValueDocument>;
  private indexes: Promise<unknown> | null = null;

  constructor(
    private readonly counters: BoundedCollection<CounterDocument>,
    db: Db,
    writeConcern: WriteConcernSettings,
    maxTimeMS: number,
    private readonly onCounterWrite?: (key: ResolvedKey, doc: CounterDocument) => void,
  ) {
    this.values = boundedCollection(
      db.collection<ValueDocument>('gapless_values', { writeConcern, promoteLongs: false }),
      maxTimeMS,
    );
  }

  /**
   * Hands out `count` values of the gapless sequence `key` (1 to RESERVATIONS_PER_REQUEST), all
   * held by one new token for the sequence's `holdSeconds`: the lowest free ones first, then new
   * ones, lowest first. All or nothing: when the sequence cannot issue them all, the free values
   * it took are released again and nothing is held. Null when the stored counter is not gapless
   * (the caller's cached definition is stale); SEQUENCE_NOT_FOUND for another owner's.
   */
  reserve(
    key: ResolvedKey,
    count: number,
    guard: WriteOptions & { owner?: string },
  ): Promise<{ reservations: Reservation[]; doc: CounterDocument } | null> {
    if (!Number.isSafeInteger(count) || count < 1 || count > RESERVATIONS_PER_REQUEST) {
      throw new BadUserInputError(
        `A gapless sequence holds 1 to ${RESERVATIONS_PER_REQUEST} values per allocation, each confirmed or released on its own.`,
        { field: 'count' },
      );
    }
    return this.exclusive(key.id, async () => {
      await this.ensureIndexes();
      const token = randomBytes(12).toString('base64url');
      const held: Reservation[] = [];
      try {
        return await this.issue(key, count, token, held, guard);
      } catch (err) {
        // Values this allocation took and will not answer go back at once (best effort: left
        // held, they come back when their hold ends).
        if (held.length > 0) await this.settleGroup(key, held.map(holdOf(key, token)), true, {});
        throw err;
      }
    });
  }

  /** `reserve`'s work, under the sequence's lock; appends to `held` each value it holds. */
  private async issue(
    key: ResolvedKey,
    count: number,
    token: string,
    held: Reservation[],
    guard: WriteOptions & { owner?: string },
  ): Promise<{ reservations: Reservation[]; doc: CounterDocument } | null> {
    /** The largest value known to be issued, in its period (duplicate keys raise it). */
    let top: { period: string | null; value: number } | null = null;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const read = await this.counter(key, guard);
      const definition = definitionOf(read);
      if (definition.holdSeconds === null) return null;
      const doc = await this.startPeriod(key, read, definition, guard);
      const period = storedPeriodKey(doc, definition.period);
      const now = Date.now();
      const expiresAt = new Date(now + definition.holdSeconds * 1000);
      const hold = (value: number, valuePeriod: string | null): Reservation => ({
        id: `${valueId(key, value, valuePeriod)}:${token}`,
        value,
        period: valuePeriod,
        expiresAt,
      });
      if (doc.freeCheckAt instanceof Date && doc.freeCheckAt.getTime() <= now) {
        const reused = await this.takeFree(key, doc, definition, token, expiresAt, now, guard, {
          most: count - held.length,
        });
        held.push(...reused.map((free) => hold(free.value, free.period)));
        if (held.length === count) return { reservations: held, doc };
      }
      const seq = storedSeq(doc);
      const issued: number = top !== null && top.period === period ? Math.max(top.value, seq) : seq;
      const wanted = count - held.length;
      const values = Array.from({ length: wanted }, (_, i) => issued + (i + 1) * definition.step);
      if (values[wanted - 1] > limitOf(definition)) {
        throw new SequenceExhaustedError(
          `Sequence ${describeKey(key)} cannot issue ${wanted === 1 ? 'another value' : `${wanted} more values`}${period === null ? '' : ` in period ${period}`}: its limit is ${limitOf(definition)} and every value up to it is confirmed or held. Nothing was consumed.`,
        );
      }
      beforeWrite(guard);
      // Ordered: the values before a duplicate key are inserted (held), none after it.
      let inserted = wanted;
      try {
        await this.values.collection.insertMany(
          values.map((value) => ({
            _id: valueId(key, value, period),
            sequence: key.id,
            ...(period === null ? {} : { period }),
            value: toLong(value),
            token,
            expiresAt,
          })),
          this.values.options({ ordered: true }),
        );
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        inserted = firstFailedWrite(err) ?? 0;
      }
      held.push(...values.slice(0, inserted).map((value) => hold(value, period)));
      const written =
        inserted === 0
          ? doc
          : await this.recordIssued(key, period, values[inserted - 1], expiresAt, now);
      if (held.length === count) return { reservations: held, doc: written };
      // Issued by another instance (or before a crash): go on above it.
      top = { period, value: values[inserted] };
    }
    throw new SequenceContentionError(
      `Sequence ${describeKey(key)}: other instances issued the next value ${MAX_ATTEMPTS} times in a row; nothing is held, please retry.`,
    );
  }

  /**
   * For a periodic sequence, lets the database's clock move the counter into a later period
   * (`seq` restarts at `start - step` there) and answers the counter after; any other is answered
   * as read.
   */
  private async startPeriod(
    key: ResolvedKey,
    doc: CounterDocument,
    definition: SequenceDefinition,
    guard: WriteOptions,
  ): Promise<CounterDocument> {
    const clock = periodClockOf(definition);
    if (clock === null) return doc;
    const starts = startsPeriod(clock);
    beforeWrite(guard);
    const started = await this.counters.collection.findOneAndUpdate(
      { _id: key.id },
      [
        {
          $set: {
            currentPeriod: { $cond: [starts, periodNow(clock), '$currentPeriod'] },
            seq: { $cond: [starts, toLong(definition.start - definition.step), '$seq'] },
          },
        },
      ],
      this.counters.options({ returnDocument: 'after' as const }),
    );
    if (started === null) throw new SequenceNotFoundError(describeKey(key));
    return started;
  }

  /**
   * After a new value's insert: the counter's `seq` follows it (within its period: a counter that
   * moved on to a later period meanwhile keeps its `seq`) and `freeCheckAt` is at most its expiry.
   */
  private async recordIssued(
    key: ResolvedKey,
    period: string | null,
    value: number,
    expiresAt: Date,
    now: number,
  ): Promise<CounterDocument> {
    const expiry = { $min: { freeCheckAt: expiresAt }, $set: { updatedAt: new Date(now) } };
    const options = this.counters.options({ returnDocument: 'after' as const });
    let written = await this.counters.collection.findOneAndUpdate(
      period === null ? { _id: key.id } : { _id: key.id, currentPeriod: period },
      { ...expiry, $max: { seq: toLong(value) } },
      options,
    );
    if (written === null && period !== null) {
      written = await this.counters.collection.findOneAndUpdate({ _id: key.id }, expiry, options);
    }
    if (written === null) throw new SequenceNotFoundError(describeKey(key));
    this.onCounterWrite?.(key, written);
    return written;
  }

  /** Confirms a reservation: its value is used for good. Answers the value and the sequence after. */
  async confirm(id: string, guard: WriteOptions & { owner?: string }): Promise<Settled> {
    return settledOrThrow((await this.settleMany([id], false, guard))[0]);
  }

  /** Releases a reservation unused: its value is handed out again before any new one. */
  async release(id: string, guard: WriteOptions & { owner?: string }): Promise<Settled> {
    return settledOrThrow((await this.settleMany([id], true, guard))[0]);
  }

  /**
   * Confirms (or, with `frees`, releases) the values the reservation ids name, each on its own:
   * one answer per id, in order, the value and its sequence after, or why that id changed nothing
   * (BAD_USER_INPUT for a malformed id, SEQUENCE_NOT_FOUND for one of a sequence that is not the
   * caller's, RESERVATION_NOT_FOUND for one whose token does not hold its value now). Per sequence named: one counter read, one
   * update of all its values, and only when some were refused or already settled a read of them.
   * Repeating a settled id in a later call answers it settled again and changes nothing. Within
   * one call each reservation is answered once, at the first id naming it: a later id naming the
   * same value and token (the same id, or the value written otherwise, `07` for `7`) is
   * BAD_USER_INPUT, so no answer counts a reservation twice.
   */
  async settleMany(
    ids: string[],
    frees: boolean,
    guard: WriteOptions & { owner?: string },
  ): Promise<Array<Settled | { error: DomainError }>> {
    const outcomes = new Array<Settled | { error: DomainError }>(ids.length);
    const groups = new Map<
      string,
      { key: ResolvedKey; items: Array<{ index: number; hold: Hold }> }
    >();
    /** The first index of each hold named, by its `holdKey`. */
    const firstIndex = new Map<string, number>();
    ids.forEach((id, index) => {
      let hold: Hold;
      try {
        hold = parseReservationId(id);
      } catch (err) {
        if (!(err instanceof BadUserInputError)) throw err;
        outcomes[index] = { error: err };
        return;
      }
      const held = holdKey(hold);
      const first = firstIndex.get(held);
      if (first !== undefined) {
        outcomes[index] = { error: repeated(first) };
        return;
      }
      firstIndex.set(held, index);
      const group = groups.get(hold.key.id) ?? { key: hold.key, items: [] };
      group.items.push({ index, hold });
      groups.set(hold.key.id, group);
    });
    for (const { key, items } of groups.values()) {
      const refuse = (item: { index: number; hold: Hold }) => {
        outcomes[item.index] = { error: notFound(item.hold) };
      };
      let doc: CounterDocument;
      try {
        doc = await this.counter(key, guard);
      } catch (err) {
        if (!(err instanceof SequenceNotFoundError)) throw err;
        for (const item of items) outcomes[item.index] = { error: err };
        continue;
      }
      if (definitionOf(doc).holdSeconds === null) {
        items.forEach(refuse);
        continue;
      }
      const settled = await this.settleGroup(
        key,
        items.map((item) => item.hold),
        frees,
        guard,
      );
      const sequence = toState(key, settled.doc ?? doc);
      for (const item of items) {
        if (settled.holds.has(holdKey(item.hold))) {
          outcomes[item.index] = { value: item.hold.value, sequence };
        } else refuse(item);
      }
    }
    return outcomes;
  }

  /**
   * Settles values of one sequence held by the tokens `holds` name, each atomically on its own
   * (an update matches a value only while its token holds it, unsettled); answers which holds are
   * settled now (by this call or an earlier one with the same token) and, after a release, the
   * counter as it left it.
   */
  private async settleGroup(
    key: ResolvedKey,
    holds: Hold[],
    frees: boolean,
    guard: WriteOptions,
  ): Promise<{ holds: Set<string>; doc: CounterDocument | null }> {
    const distinct = new Map(holds.map((hold) => [holdKey(hold), hold]));
    const pairs = [...distinct.values()].map((hold) => ({
      _id: valueId(key, hold.value, hold.period),
      token: hold.token,
    }));
    const valueIds = [...new Set(pairs.map((pair) => pair._id))];
    const now = Date.now();
    beforeWrite(guard);
    // `_id: $in` first: every engine finds the candidates by `_id`, whatever the `$or`.
    const { modifiedCount } = await this.values.collection.updateMany(
      { _id: { $in: valueIds }, $or: pairs, expiresAt: { $gt: EPOCH } },
      frees
        ? { $set: { expiresAt: EPOCH } }
        : { $set: { confirmedAt: new Date(now) }, $unset: { expiresAt: '' } },
      this.values.options(),
    );
    let settled: Set<string>;
    if (modifiedCount === distinct.size) settled = new Set(distinct.keys());
    else {
      const docs = await this.values.collection
        .find(
          { _id: { $in: valueIds } },
          this.values.options({ projection: { token: 1, expiresAt: 1, confirmedAt: 1 } }),
        )
        .toArray();
      const byId = new Map(docs.map((doc) => [doc._id, doc]));
      settled = new Set(
        [...distinct].flatMap(([held, hold]) => {
          const doc = byId.get(valueId(key, hold.value, hold.period));
          const isSettled =
            doc !== undefined &&
            doc.token === hold.token &&
            (frees
              ? doc.expiresAt?.getTime() === EPOCH.getTime()
              : doc.expiresAt === undefined && doc.confirmedAt !== undefined);
          return isSettled ? [held] : [];
        }),
      );
    }
    if (!frees || modifiedCount === 0) return { holds: settled, doc: null };
    // Past the deadline the counter is not told: the released values are then handed out again
    // once their hold would have ended, which `freeCheckAt` already allows for.
    beforeWrite(guard);
    const released = await this.counters.collection.findOneAndUpdate(
      { _id: key.id },
      { $set: { freeCheckAt: EPOCH, updatedAt: new Date(now) }, $inc: { releases: 1 } },
      this.counters.options({ returnDocument: 'after' as const }),
    );
    if (released !== null) this.onCounterWrite?.(key, released);
    return { holds: settled, doc: released };
  }

  /**
   * The unconfirmed values of the gapless sequence `state` (as read a moment ago), as runs: RESERVED
   * while held, else RELEASED; of a periodic one, those of `period` (default: its current period).
   * One indexed read of at most `GAPS.idsScanned` values.
   */
  async gaps(state: SequenceState, request: GapRequest, period?: string | null): Promise<GapPage> {
    assertGapRequest(request);
    const after = request.after ?? null;
    const shown = state.period === null ? null : (period ?? state.currentPeriod);
    if (state.period !== null && shown !== null && !isPeriodKey(state.period, shown)) {
      throw new BadUserInputError(
        `period must be a ${state.period} period of this sequence, written ${PERIOD_KEY_EXAMPLE[state.period]}.`,
        { field: 'period' },
      );
    }
    const waiting = await this.values.collection
      .find(
        {
          sequence: state.id,
          ...(shown === null ? {} : { period: shown }),
          expiresAt: { $exists: true },
          ...(after === null ? {} : { value: { $gt: toLong(after) } }),
        },
        this.values.options({
          sort: { sequence: 1, value: 1 } as const,
          limit: GAPS.idsScanned,
          projection: { value: 1, expiresAt: 1 },
        }),
      )
      .toArray();
    const now = Date.now();
    const values = waiting.map((entry) => ({
      value: entry.value.toNumber(),
      kind: entry.expiresAt!.getTime() <= now ? ('RELEASED' as const) : ('RESERVED' as const),
    }));
    const truncated = waiting.length === GAPS.idsScanned;
    // The counter's value counts in its current period; an ended period's holes lie at most as
    // high as its highest waiting value.
    const counted = shown === state.currentPeriod ? state.value : state.start - state.step;
    const top = truncated
      ? values[values.length - 1].value
      : Math.max(counted, ...values.map((v) => v.value));
    const page = gapPage(values, state.step, request, top);
    return truncated ? { ...page, complete: false } : page;
  }

  /**
   * Hands the lowest free values, at most `most`, to `token`, lowest first; when fewer were free,
   * moves the counter's `freeCheckAt` to the earliest expiry still ahead (unless the counter
   * changed meanwhile).
   */
  private async takeFree(
    key: ResolvedKey,
    doc: CounterDocument,
    definition: SequenceDefinition,
    token: string,
    expiresAt: Date,
    now: number,
    guard: WriteOptions,
    { most }: { most: number },
  ): Promise<Array<{ value: number; period: string | null }>> {
    // The lowest free values, then one update taking those still free (another instance may take
    // some between the two: those not holding `token` after it are not ours).
    const free = await this.values.collection
      .find(
        { sequence: key.id, expiresAt: { $lte: new Date(now) } },
        this.values.options({
          // Oldest period first: an ended period's holes are filled before the current one's.
          sort: definition.period === null ? BY_VALUE : BY_PERIOD_AND_VALUE,
          // By expiry, not by value: the expiry index holds only unconfirmed values and the range
          // reaches only the free ones, so the work grows with those, not with every value issued
          // (by value, the scan would walk the confirmed ones too).
          hint: FREE_VALUES_INDEX,
          limit: most,
          projection: { value: 1, period: 1 },
        }),
      )
      .toArray();
    let taken = free.map((entry) => ({
      _id: entry._id,
      value: entry.value.toNumber(),
      period: definition.period === null ? null : (entry.period ?? null),
    }));
    if (taken.length > 0) {
      beforeWrite(guard);
      const ids = taken.map((entry) => entry._id);
      const { modifiedCount } = await this.values.collection.updateMany(
        { _id: { $in: ids }, expiresAt: { $lte: new Date(now) } },
        { $set: { token, expiresAt } },
        this.values.options(),
      );
      if (modifiedCount < taken.length) {
        const ours = await this.values.collection
          .find({ _id: { $in: ids }, token }, this.values.options({ projection: { _id: 1 } }))
          .toArray();
        const oursIds = new Set(ours.map((entry) => entry._id));
        taken = taken.filter((entry) => oursIds.has(entry._id));
      }
    }
    if (taken.length === most) return taken;
    const earliest = await this.values.collection.findOne(
      { sequence: key.id, expiresAt: { $exists: true } },
      this.values.options({
        sort: { sequence: 1, expiresAt: 1 } as const,
        projection: { expiresAt: 1 },
      }),
    );
    await this.counters.collection.updateOne(
      { _id: key.id, seq: doc.seq, releases: doc.releases ?? { $exists: false } } as object,
      earliest?.expiresAt === undefined
        ? { $unset: { freeCheckAt: '' } }
        : { $set: { freeCheckAt: earliest.expiresAt } },
      this.counters.options(),
    );
    return taken;
  }

  /** The counter of `key`, when it exists and is the guard's owner's; else SEQUENCE_NOT_FOUND. */
  private async counter(key: ResolvedKey, guard: { owner?: string }): Promise<CounterDocument> {
    const doc = await this.counters.collection.findOne({ _id: key.id }, this.counters.options());
    if (doc === null || (guard.owner !== undefined && doc.owner !== guard.owner)) {
      throw new SequenceNotFoundError(describeKey(key));
    }
    if (doc.releases !== undefined) storedInteger(doc, 'releases', doc.releases);
    return doc.pending === undefined ? doc : this.moveLegacyPending(key, doc);
  }

  /**
   * Moves the waiting values a 0.4 counter kept in its own `pending` array into value documents
   * (each once: a duplicate key is one moved already), then drops the array, so none of them is
   * lost to the upgrade; answers the counter as it is then.
   */
  private async moveLegacyPending(
    key: ResolvedKey,
    doc: CounterDocument,
  ): Promise<CounterDocument> {
    const pending = storedPending(doc);
    if (pending.length > 0) {
      try {
        await this.values.collection.insertMany(
          pending.map((entry) => ({
            _id: valueId(key, entry.value.toNumber(), null),
            sequence: key.id,
            value: entry.value,
            token: entry.token,
            expiresAt: entry.expiresAt,
          })),
          this.values.options({ ordered: false }),
        );
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    }
    const moved = await this.counters.collection.findOneAndUpdate(
      { _id: key.id },
      { $unset: { pending: '', rev: '' }, $set: { freeCheckAt: EPOCH } },
      this.counters.options({ returnDocument: 'after' as const }),
    );
    if (moved === null) throw new SequenceNotFoundError(describeKey(key));
    return moved;
  }

  /**
   * The indexes the value documents are found by (the free ones of a sequence by expiry, the
   * waiting ones by value), created once per process, before its first gapless change.
   */
  private ensureIndexes(): Promise<unknown> {
    this.indexes ??= this.values.collection
      .createIndexes(
        [
          { key: { sequence: 1, expiresAt: 1 }, name: FREE_VALUES_INDEX, sparse: true },
          { key: { sequence: 1, value: 1 }, name: 'sequence_value' },
        ],
        this.values.options(),
      )
      .catch((err: unknown) => {
        this.indexes = null;
        throw err;
      });
    return this.indexes;
  }

  private async exclusive<T>(id: string, run: () => Promise<T>): Promise<T> {
    let lock = this.locks.get(id);
    if (lock === undefined) {
      lock = new Mutex();
      this.locks.set(id, lock);
    }
    try {
      return await lock.runExclusive(run);
    } finally {
      if (!lock.isLocked()) this.locks.delete(id);
    }
  }
}

/** A value as a reservation id names it: of which sequence and period, held by which token. */
interface Hold {
  key: ResolvedKey;
  period: string | null;
  value: number;
  token: string;
}

/** A settled reservation's value and its sequence after. */
export interface Settled {
  value: number;
  sequence: SequenceState;
}

/** One hold's identity: its value document and its token. */
const holdKey = (hold: Hold) => `${valueId(hold.key, hold.value, hold.period)}:${hold.token}`;

/** The holds of `token` on the values of `reservations`, to settle them. */
const holdOf =
  (key: ResolvedKey, token: string) =>
  (reservation: Reservation): Hold => ({
    key,
    period: reservation.period,
    value: reservation.value,
    token,
  });

const notFound = (hold: Hold) =>
  new ReservationNotFoundError(
    `Reservation ${valueId(hold.key, hold.value, hold.period)}:${hold.token} holds no value now: it was confirmed or released already, or its hold expired and value ${hold.value} was handed out again. Nothing changed.`,
    { field: 'id' },
  );

const repeated = (first: number) =>
  new BadUserInputError(
    `This id names the same reservation as ids[${first}]: each reservation is settled once per call, and answered there. Nothing changed for this id.`,
    { field: 'id' },
  );

function settledOrThrow(outcome: Settled | { error: DomainError }): Settled {
  if ('error' in outcome) throw outcome.error;
  return outcome;
}

/**
 * In an ordered bulk write refused by a duplicate key, the position of the refused write: the
 * writes before it were done, none after it.
 */
function firstFailedWrite(err: unknown): number | null {
  const writeErrors = (err as { writeErrors?: unknown }).writeErrors;
  const first: unknown = Array.isArray(writeErrors) ? writeErrors[0] : writeErrors;
  const index = (first as { index?: unknown } | undefined)?.index;
  return typeof index === 'number' ? index : null;
}

/** The sequence, period, value and token a reservation id names; a malformed one is BAD_USER_INPUT. */
function parseReservationId(id: string): Hold {
  const parts = id.split(':');
  const [sequenceId = ''] = parts;
  const period = parts.length === 4 ? parts[1] : null;
  const [value = '', token = ''] = parts.slice(parts.length === 4 ? 2 : 1);
  const number = Number(value);
  if (
    (parts.length === 3 || parts.length === 4) &&
    (period === null || PERIOD_KEY_SHAPE.test(period)) &&
    /^-?\d{1,16}$/.test(value) &&
    Number.isSafeInteger(number) &&
    /^[A-Za-z0-9_-]{16}$/.test(token)
  ) {
    return { key: parseSequenceId(sequenceId, 'id'), period, value: number, token };
  }
  throw new BadUserInputError(
    'id must be the id of a reservation, as allocateSequence answered it.',
    {
      field: 'id',
    },
  );
}
