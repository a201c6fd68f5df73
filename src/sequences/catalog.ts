/**
 * `SequenceCatalog`: the sequences as callers see them; the API's only way to the counters.
 *
 * Why a class beside `Sequences` rather than methods of it: the two have different callers and
 * different rules. `Sequences` is the counters engine that components allocate their own ids with
 * (users' COUNTER, BLOCK's allocator), with no caller to check and the implicit `userid`
 * definition; this catalog is what the API holds (ServiceComponents, src/components.ts), and every
 * method takes the caller's access. Kept apart, the API cannot reach an unchecked allocation (it
 * is never given the engine), and the users component never goes through access checks meant for
 * tenants.
 *
 * Invariants:
 * - Ownership. A client names sequences in a namespace of its own (./keys.ts): the names it sends
 *   are its own, whatever other clients use, and a sequence it creates stores it as `owner`. A
 *   client sees, reads, allocates from and sets only its own sequences; any other answers exactly
 *   like one that does not exist (SEQUENCE_NOT_FOUND, or absent from `list`), and creating a name
 *   another client uses creates the caller's own, so tenants learn nothing of each other. Admin
 *   names the shared namespace (its own counters, version 0.1's, `userid`: those without an
 *   owner, admin-only but for `userid`), a client's as `<client>~<name>` (the first part of that
 *   sequence's `id`), and sees all in `list`.
 * - Only `create` creates: `allocate`, `setValue` and `peekNext` on an undefined name are
 *   SEQUENCE_NOT_FOUND and write nothing. Reserved sequences exist implicitly.
 * - Reserved sequences (`userid`) belong to the component whose ids they feed. Nobody allocates
 *   them here (values issued outside that component would also be issued as its ids), they are
 *   created only with the implicit definition (the first id is 1, always), read by every caller
 *   (`get`, `peekNext`, listed by `list`: watching the counter `createUser` advances is what these
 *   reads are for, and ids are no secret from whoever reads users), set and given display
 *   formats (`setFormat`) by admin only, and set forward only: BLOCK reservations live in process memory, where no check can see them, so a
 *   lower value could issue an id twice. Their state carries `drift`.
 * - Every write honours `options.signal` (src/database/write-options.ts).
 */
import type { ChangeFeed, WriteOptions } from '../database/index';
import type { DomainError } from '../errors';
import { RESERVATIONS_PER_REQUEST, SEQUENCE_FORMAT } from '../limits';
import { type SequenceState, unusedState } from './counter-document';
import {
  type DefinitionInput,
  IMPLICIT_DEFINITION,
  differingField,
  validateDefinition,
} from './definition';
import { BadUserInputError, ForbiddenError, SequenceNotFoundError } from './errors';
import { type GapPage, type GapRequest, assertGapRequest } from './gaps';
import {
  OWNER_MARK,
  type ResolvedKey,
  type SequenceKey,
  describeKey,
  malformedSequenceId,
  parseSequenceId,
  resolveKey,
} from './keys';
import { formatByVersion, formatValue, formatValues, parseFormat } from './format';
import type { SequencePage, SequencePageRequest } from './pages';
import type { NamespaceMove } from './namespaces';
import { periodClockOf } from './periods';
import type { Reservation } from './reservations';
import {
  type AllocatedRange,
  type PastPeriod,
  type PastPeriodRequest,
  type Sequences,
  valuesOf,
} from './sequences';

/** An allocation's values with the period they were issued in and as people write them. */
export interface IssuedRange extends AllocatedRange {
  /** The key of the period the values count in (`2026`); null for a sequence without periods. */
  period: string | null;
  /**
   * Each value in the sequence's format, in order; null for a sequence without a format, or past
   * `SEQUENCE_FORMAT.valuesFormatted` values.
   */
  formatted: string[] | null;
}

/** A held value of a gapless sequence, as people write it too. */
export interface IssuedReservation extends Reservation {
  formatted: string | null;
}

/** Who is calling: admin, or a client known by name (from its token). */
export type SequenceAccess = { role: 'admin' } | { role: 'client'; client: string };

/** A sequence another component owns because it feeds that component's stored ids. */
export interface ReservedSequence {
  /** An unscoped name. */
  name: string;
  /** What its values become, for messages: "user ids". */
  feeds: string;
  /** The largest id stored by the owning component, for `drift`. */
  largestStored(): Promise<number>;
  /** The issued ids the owning component does not hold (below its largest), a page of runs. */
  gaps(request: GapRequest): Promise<GapPage>;
}

/** An id (of a sequence, or a reservation) as the caller sees it: see `SequenceCatalog.seen`. */
function idSeenBy(access: SequenceAccess, id: string): string {
  if (access.role === 'admin') return id;
  const prefix = `${access.client}${OWNER_MARK}`;
  return id.startsWith(prefix) ? id.slice(prefix.length) : id;
}

/**
 * The stored id of a reservation id a client sent: in its namespace. Reservations are of gapless
 * sequences, never reserved ones; one holding `~` from a client names no sequence of it and is
 * refused as malformed.
 */
function storedId(access: SequenceAccess, id: string): string {
  return access.role === 'admin' ? id : `${access.client}${OWNER_MARK}${id}`;
}

/** The owner filter of a caller: a client's own name; none for admin. */
function ownerOf(access: SequenceAccess): string | undefined {
  return access.role === 'admin' ? undefined : access.client;
}

export class SequenceCatalog {
  private readonly reserved: Map<string, ReservedSequence>;

  constructor(
    private readonly counters: Sequences,
    reserved: ReservedSequence[] = [],
  ) {
    this.reserved = new Map(reserved.map((sequence) => [sequence.name, sequence]));
  }

  /** The sequence, or null when it does not exist or is not the caller's. */
  async get(key: SequenceKey, access: SequenceAccess): Promise<SequenceState | null> {
    return this.seenOrNull(await this.getOwned(this.keyOf(key, access), access), access);
  }

  /**
   * The sequence with this `id` (as the caller sees ids, see `seen`) as `get` answers it;
   * BAD_USER_INPUT naming `field` when malformed.
   */
  async getById(id: string, access: SequenceAccess, field = 'id'): Promise<SequenceState | null> {
    const state = await this.getOwned(this.storedKey(id, access, field), access);
    return this.seenOrNull(state, access);
  }

  /**
   * A page of the caller's sequences and the reserved ones, by name then scope (./pages.ts); an
   * unreadable counter is listed in its place as its SEQUENCE_CORRUPT error.
   */
  async list(
    request: Omit<SequencePageRequest, 'owner' | 'shared'>,
    access: SequenceAccess,
  ): Promise<SequencePage> {
    const cursor = (id: string | null | undefined, field: string) =>
      id === undefined || id === null ? id : this.storedKey(id, access, field).id;
    const page = await this.counters.page({
      ...request,
      after: cursor(request.after, 'after'),
      before: cursor(request.before, 'before'),
      owner: ownerOf(access),
      shared: [...this.reserved.keys()],
    });
    const entries = await Promise.all(
      page.entries.map(async (entry) => {
        const id = idSeenBy(access, entry.id);
        if (!('sequence' in entry)) return { ...entry, id };
        const reserved = this.reservedOf(entry.sequence);
        return reserved === undefined
          ? { id, sequence: this.seen(entry.sequence, access) }
          : { id, sequence: await this.withDrift(reserved, entry.sequence) };
      }),
    );
    return { ...page, entries };
  }

  /**
   * Moves version 0.3's client-owned counters into their owner's namespace; run once at start,
   * before serving (./namespaces.ts).
   */
  moveOwnedCounters(): Promise<NamespaceMove> {
    return this.counters.moveOwnedCounters();
  }

  /** Defines a sequence in the caller's namespace, owned by the calling client; idempotent. */
  async create(
    input: SequenceKey & DefinitionInput,
    access: SequenceAccess,
    options?: WriteOptions,
  ): Promise<SequenceState> {
    const reserved = this.reservedAs(input, access);
    if (reserved !== undefined) {
      const field = differingField(validateDefinition(input), IMPLICIT_DEFINITION);
      if (field !== null) {
        throw new BadUserInputError(
          `Sequence "${reserved.name}" feeds ${reserved.feeds}: its definition is fixed (start 1, step 1, no max), so the first is 1 and they only grow.`,
          { field },
        );
      }
      const state = await this.counters.create({ name: reserved.name }, options);
      return this.withDrift(reserved, state);
    }
    const state = await this.counters.create({ ...input, ...this.keyOf(input, access) }, options);
    return this.seen(state, access);
  }

  /**
   * Consumes `count` values of an existing sequence; answers the range and the updated state, and
   * of a gapless sequence one reservation per value (the range null when they are not consecutive
   * in one period).
   */
  async allocate(
    key: SequenceKey,
    count: number,
    access: SequenceAccess,
    options?: WriteOptions,
  ): Promise<{
    range: IssuedRange | null;
    sequence: SequenceState;
    reservations: IssuedReservation[];
  }> {
    const reserved = this.reservedOf(key);
    if (reserved !== undefined) {
      throw new ForbiddenError(
        `Sequence "${reserved.name}" feeds ${reserved.feeds} and cannot be allocated here: its values would also be issued as ${reserved.feeds}.`,
        { field: 'name' },
      );
    }
    const allocated = await this.counters.allocateExisting(this.keyOf(key, access), count, {
      ...options,
      owner: ownerOf(access),
    });
    const { range, reservations, sequence } = allocated;
    const formattable = sequence.format !== null && count <= SEQUENCE_FORMAT.valuesFormatted;
    const format = (values: number[], period: string | null) =>
      sequence.format === null || !formattable
        ? null
        : formatValues(sequence.format, sequence.period, values, period);
    // The period of the values: a gapless reservation's own (a free value of an ended period is
    // handed out in that period), else the counter's as the allocation left it.
    const period = reservations.length === 0 ? sequence.currentPeriod : reservations[0].period;
    const formatted = range === null ? null : format(valuesOf(range), period);
    return {
      range: range === null ? null : { ...range, period, formatted },
      sequence: this.seen(sequence, access),
      reservations: reservations.map((reservation, i) => ({
        ...reservation,
        id: idSeenBy(access, reservation.id),
        formatted: formatted?.[i] ?? format([reservation.value], reservation.period)?.[0] ?? null,
      })),
    };
  }

  /** Sets the last issued value of an existing sequence (reserved ones: admin, forward only). */
  async setValue(
    key: SequenceKey,
    value: number,
    access: SequenceAccess,
    options?: WriteOptions,
  ): Promise<SequenceState> {
    const reserved = this.reservedAs(key, access);
    if (reserved !== undefined) {
      const state = await this.counters.setValue(key, value, {
        ...options,
        forwardOnly: true,
      });
      return this.withDrift(reserved, state);
    }
    const state = await this.counters.setValue(this.keyOf(key, access), value, {
      ...options,
      owner: ownerOf(access),
      mayCreate: false,
    });
    return this.seen(state, access);
  }

  /**
   * Moves an existing sequence forward to at least `to`, never back (reserved ones: admin only,
   * also before their first use); a periodic one in `period`, which it then requires.
   */
  async advance(
    key: SequenceKey,
    to: number,
    access: SequenceAccess,
    options?: WriteOptions,
    period: string | null = null,
  ): Promise<SequenceState> {
    const reserved = this.reservedAs(key, access);
    if (reserved !== undefined) {
      return this.withDrift(reserved, await this.counters.advance(key, to, options, period));
    }
    const state = await this.counters.advance(
      this.keyOf(key, access),
      to,
      { ...options, owner: ownerOf(access), mayCreate: false },
      period,
    );
    return this.seen(state, access);
  }

  /**
   * Admin: gives a reserved sequence (`userid`) a display format for the values from the first one
   * nobody holds yet (`Sequences.addFormatVersion`; the owning component's largest stored value
   * counts as held). Every other sequence's format is part of its definition, given once at
   * `create`.
   */
  async setFormat(
    key: SequenceKey,
    format: string,
    access: SequenceAccess,
    options?: WriteOptions,
  ): Promise<SequenceState> {
    const reserved = this.reservedAs(key, access);
    if (reserved === undefined) {
      if ((await this.getOwned(this.keyOf(key, access), access)) === null) {
        throw new SequenceNotFoundError(describeKey(resolveKey(this.keyOf(key, access))));
      }
      throw new BadUserInputError(
        "A sequence's format is part of its definition, given once with createSequence, so that every number it issued keeps its writing.",
        { field: 'name' },
      );
    }
    const floor = await reserved.largestStored();
    const state = await this.counters.addFormatVersion(key, format, floor, options);
    return this.withDrift(reserved, state);
  }

  /**
   * How a reserved sequence's values (`userid`: user ids) are written for people: each in the
   * format that covered it when it was issued; null before any format, or past its padding.
   */
  async displayOf(name: string): Promise<(value: number) => string | null> {
    const reserved = this.reserved.get(name);
    if (reserved === undefined) return () => null;
    const versions = await this.counters.formatVersions({ name: reserved.name });
    return (value) => formatByVersion(versions, value);
  }

  /** Confirms a value of a gapless sequence (the caller's own): it is used for good. */
  async confirmReservation(
    id: string,
    access: SequenceAccess,
    options?: WriteOptions,
  ): Promise<{ value: number; sequence: SequenceState }> {
    const settled = await this.counters.reservations.confirm(storedId(access, id), {
      ...options,
      owner: ownerOf(access),
    });
    return { ...settled, sequence: this.seen(settled.sequence, access) };
  }

  /** Releases a value of a gapless sequence unused: the next allocation hands it out again. */
  async releaseReservation(
    id: string,
    access: SequenceAccess,
    options?: WriteOptions,
  ): Promise<{ value: number; sequence: SequenceState }> {
    const settled = await this.counters.reservations.release(storedId(access, id), {
      ...options,
      owner: ownerOf(access),
    });
    return { ...settled, sequence: this.seen(settled.sequence, access) };
  }

  /**
   * Confirms (`frees`: releases) the values of gapless sequences (the caller's own) that `ids`
   * name, each on its own: one outcome per id, in order, a repeat of a reservation refused alone
   * (`Reservations.settleMany`). More than RESERVATIONS_PER_REQUEST ids are refused whole, nothing
   * settled.
   */
  async settleReservations(
    ids: string[],
    frees: boolean,
    access: SequenceAccess,
    options?: WriteOptions,
  ): Promise<Array<{ value: number; sequence: SequenceState } | { error: DomainError }>> {
    if (ids.length > RESERVATIONS_PER_REQUEST) {
      throw new BadUserInputError(
        `ids holds ${ids.length} reservation ids; one call settles at most ${RESERVATIONS_PER_REQUEST}. Nothing was settled.`,
        { field: 'ids' },
      );
    }
    const outcomes = await this.counters.reservations.settleMany(
      ids.map((id) => storedId(access, id)),
      frees,
      { ...options, owner: ownerOf(access) },
    );
    return outcomes.map((outcome) =>
      'error' in outcome ? outcome : { ...outcome, sequence: this.seen(outcome.sequence, access) },
    );
  }

  /**
   * The holes of a sequence the caller has read: ids not stored for a reserved one (`userid`),
   * unconfirmed values for a gapless one (of a periodic one, in `period`, by default its current
   * one); null for any other, whose use the service cannot see.
   */
  async gaps(
    state: SequenceState,
    request: GapRequest,
    period?: string | null,
  ): Promise<GapPage | null> {
    assertGapRequest(request);
    const reserved = this.reservedOf(state);
    if (reserved !== undefined) return reserved.gaps(request);
    // The state as its caller saw it: its stored id again, from its name, scope and owner.
    const stored = { ...state, id: resolveKey(state).id };
    return state.gapless ? this.counters.reservations.gaps(stored, request, period) : null;
  }

  /**
   * The ended periods of a sequence the caller has read, oldest first, with the last value of each
   * as the sequence writes it; null unless it has a `period` and is not gapless (a gapless one
   * keeps each period's values: `gaps(period)`).
   */
  async pastPeriods(
    state: SequenceState,
    request: PastPeriodRequest,
  ): Promise<{
    periods: (PastPeriod & { formattedValue: string | null })[];
    hasMore: boolean;
  } | null> {
    if (state.period === null || state.gapless) return null;
    const page = await this.counters.pastPeriods(state, request);
    const parts = state.format === null ? null : parseFormat(state.format, state.period);
    return {
      ...page,
      periods: page.periods.map((entry) => ({
        ...entry,
        formattedValue:
          parts === null || entry.value < state.start
            ? null
            : formatValue(parts, entry.value, entry.period),
      })),
    };
  }

  /**
   * `next` of a sequence the caller has read, as the sequence will write it. Before the first
   * allocation of a periodic sequence with a format, no period is stored (`currentPeriod` null):
   * its `next` is written in the period the database's clock is in now, read for this answer. Why
   * that clock: it is the one the first allocation takes its period from (./periods.ts), so the
   * two agree unless a period ends in between, whichever instance answers and whatever its own
   * clock says. One read, only for such a sequence; any other answers its state's.
   */
  async formattedNext(state: SequenceState): Promise<string | null> {
    const { format, next } = state;
    const clock = periodClockOf(state);
    if (format === null || next === null || clock === null || state.currentPeriod !== null) {
      return state.formattedNext;
    }
    const period = await this.counters.clockPeriod(state, clock);
    return period === null ? null : formatValue(parseFormat(format, clock.period), next, period);
  }

  /**
   * The sequence's changes as they happen, for one that the caller may read (else
   * SEQUENCE_NOT_FOUND, before any stream opens): first its state once the stream is open, unless
   * resuming `after` a cursor.
   */
  async watch(
    key: SequenceKey,
    access: SequenceAccess,
    after: string | null,
  ): Promise<ChangeFeed<SequenceState>> {
    const resolved = resolveKey(this.keyOf(key, access));
    const read = async () => {
      const state = await this.getOwned(resolved, access);
      if (state === null) throw new SequenceNotFoundError(describeKey(resolved));
      return this.seen(state, access);
    };
    await read();
    return this.counters.changes.watch(resolved, after, read, (state) => this.seen(state, access));
  }

  /** The value the next allocation of an existing sequence will return; nothing is written. */
  async peekNext(key: SequenceKey, access: SequenceAccess): Promise<number> {
    const reserved = this.reservedOf(key);
    return this.counters.peekNext(this.keyOf(key, access), {
      owner: reserved === undefined ? ownerOf(access) : undefined,
      mayCreate: reserved !== undefined,
    });
  }

  /** The reserved sequence `key` names, if any (in the shared namespace, unscoped). */
  private reservedOf(key: SequenceKey): ReservedSequence | undefined {
    return (key.scope ?? null) === null && (key.owner ?? null) === null
      ? this.reserved.get(key.name)
      : undefined;
  }

  /**
   * The key a caller's name stands for: a reserved name is the shared sequence for everyone; a
   * client's names are in its own namespace; admin's in the shared one, or, written
   * `<client>~<name>`, in that client's.
   */
  private keyOf(key: SequenceKey, access: SequenceAccess): SequenceKey {
    if (this.reservedOf(key) !== undefined) return { ...key, owner: null };
    if (access.role === 'client') return { ...key, owner: access.client };
    const mark = key.name.indexOf(OWNER_MARK);
    return mark < 0
      ? { ...key, owner: null }
      : { ...key, name: key.name.slice(mark + 1), owner: key.name.slice(0, mark) };
  }

  /**
   * How the caller sees a sequence: a client its own by their id in its namespace, without the
   * `<client>~` of storage (so a client's ids are those of 0.3, and no other client's name shows);
   * admin by the stored id.
   */
  private seen(state: SequenceState, access: SequenceAccess): SequenceState {
    const id = idSeenBy(access, state.id);
    return id === state.id ? state : { ...state, id };
  }

  private seenOrNull(state: SequenceState | null, access: SequenceAccess): SequenceState | null {
    return state === null ? null : this.seen(state, access);
  }

  /**
   * The key a sequence id the caller sent stands for (the inverse of `seen`): a client's ids are in
   * its namespace, but for the reserved ones; an id holding `~` from a client is malformed, whoever
   * it names (BAD_USER_INPUT naming `field`, as any malformed id).
   */
  private storedKey(id: string, access: SequenceAccess, field: string): ResolvedKey {
    const key = parseSequenceId(id, field);
    if (access.role === 'admin' || this.reservedOf(key) !== undefined) return key;
    if (key.owner !== null) throw malformedSequenceId(field);
    return resolveKey({ ...key, owner: access.client });
  }

  /** The sequence of a key in its namespace, or null when it does not exist or is not the caller's. */
  private async getOwned(key: SequenceKey, access: SequenceAccess): Promise<SequenceState | null> {
    const reserved = this.reservedOf(key);
    const state = await this.counters.get(key);
    if (reserved !== undefined) {
      return this.withDrift(reserved, state ?? unusedState(resolveKey(key), IMPLICIT_DEFINITION));
    }
    const owner = ownerOf(access);
    return state === null || (owner !== undefined && state.owner !== owner) ? null : state;
  }

  /** Like `reservedOf`, refusing every caller but admin (after validating the key): for writes. */
  private reservedAs(key: SequenceKey, access: SequenceAccess): ReservedSequence | undefined {
    const reserved = this.reservedOf(key);
    if (reserved !== undefined && access.role !== 'admin') {
      throw new ForbiddenError(
        `Sequence ${describeKey(resolveKey(key))} feeds ${reserved.feeds}; only admin may define or set it.`,
        { field: 'name' },
      );
    }
    return reserved;
  }

  private async withDrift(
    reserved: ReservedSequence,
    state: SequenceState,
  ): Promise<SequenceState> {
    return { ...state, drift: state.value - (await reserved.largestStored()) };
  }
}
