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
 * - Ownership. A sequence a client creates stores that client as `owner`. A client sees, reads,
 *   allocates from and sets only its own sequences; any other answers exactly like one that does
 *   not exist (SEQUENCE_NOT_FOUND, or absent from `list`), so tenants learn nothing of each other.
 *   Admin sees and uses all. Counters without an owner (version 0.1's, `userid`) are admin-only.
 * - Only `create` creates: `allocate`, `setValue` and `peekNext` on an undefined name are
 *   SEQUENCE_NOT_FOUND and write nothing. Reserved sequences exist implicitly.
 * - Reserved sequences (`userid`) belong to the component whose ids they feed. Nobody allocates
 *   them here (values issued outside that component would also be issued as its ids), they are
 *   created only with the implicit definition (the first id is 1, always), read by every caller
 *   (`get`, `peekNext`, listed by `list`: watching the counter `createUser` advances is what these
 *   reads are for, and ids are no secret from whoever reads users), set by admin only, and set
 *   forward only: BLOCK reservations live in process memory, where no check can see them, so a
 *   lower value could issue an id twice. Their state carries `drift`.
 * - Every write honours `options.signal` (src/database/write-options.ts).
 */
import type { WriteOptions } from '../database/write-options.js';
import { type SequenceState, unusedState } from './counter-document.js';
import {
  type DefinitionInput,
  IMPLICIT_DEFINITION,
  differingField,
  validateDefinition,
} from './definition.js';
import type { ChangeFeed } from '../database/change-feed.js';
import { BadUserInputError, ForbiddenError, SequenceNotFoundError } from './errors.js';
import { type GapPage, type GapRequest, assertGapRequest } from './gaps.js';
import { type SequenceKey, describeKey, parseSequenceId, resolveKey } from './keys.js';
import type { SequencePage, SequencePageRequest } from './pages.js';
import type { Reservation } from './reservations.js';
import type { AllocatedRange, Sequences } from './sequences.js';

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
    const reserved = this.reservedOf(key);
    const state = await this.counters.get(key);
    if (reserved !== undefined) {
      return this.withDrift(reserved, state ?? unusedState(resolveKey(key), IMPLICIT_DEFINITION));
    }
    const owner = ownerOf(access);
    return state === null || (owner !== undefined && state.owner !== owner) ? null : state;
  }

  /** The sequence with this `id` (`name` or `name/scope`) as `get` answers it; BAD_USER_INPUT naming `field` when malformed. */
  getById(id: string, access: SequenceAccess, field = 'id'): Promise<SequenceState | null> {
    return this.get(parseSequenceId(id, field), access);
  }

  /**
   * A page of the caller's sequences and the reserved ones, by name then scope (./pages.ts); an
   * unreadable counter is listed in its place as its SEQUENCE_CORRUPT error.
   */
  async list(
    request: Omit<SequencePageRequest, 'owner' | 'shared'>,
    access: SequenceAccess,
  ): Promise<SequencePage> {
    const page = await this.counters.page({
      ...request,
      owner: ownerOf(access),
      shared: [...this.reserved.keys()],
    });
    const entries = await Promise.all(
      page.entries.map(async (entry) => {
        if (!('sequence' in entry)) return entry;
        const reserved = this.reservedOf(entry.sequence);
        return reserved === undefined
          ? entry
          : { ...entry, sequence: await this.withDrift(reserved, entry.sequence) };
      }),
    );
    return { ...page, entries };
  }

  /** Defines a sequence owned by the calling client (by nobody for admin); idempotent. */
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
    return this.counters.create(input, { ...options, owner: ownerOf(access) ?? null });
  }

  /** Consumes `count` values of an existing sequence; answers the range and the updated state. */
  async allocate(
    key: SequenceKey,
    count: number,
    access: SequenceAccess,
    options?: WriteOptions,
  ): Promise<{ range: AllocatedRange; sequence: SequenceState; reservation: Reservation | null }> {
    const reserved = this.reservedOf(key);
    if (reserved !== undefined) {
      throw new ForbiddenError(
        `Sequence "${reserved.name}" feeds ${reserved.feeds} and cannot be allocated here: its values would also be issued as ${reserved.feeds}.`,
        { field: 'name' },
      );
    }
    return this.counters.allocateExisting(key, count, { ...options, owner: ownerOf(access) });
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
    return this.counters.setValue(key, value, {
      ...options,
      owner: ownerOf(access),
      mayCreate: false,
    });
  }

  /** Confirms a value of a gapless sequence (the caller's own): it is used for good. */
  confirmReservation(
    id: string,
    access: SequenceAccess,
    options?: WriteOptions,
  ): Promise<{ value: number; sequence: SequenceState }> {
    return this.counters.reservations.confirm(id, { ...options, owner: ownerOf(access) });
  }

  /** Releases a value of a gapless sequence unused: the next allocation hands it out again. */
  releaseReservation(
    id: string,
    access: SequenceAccess,
    options?: WriteOptions,
  ): Promise<{ value: number; sequence: SequenceState }> {
    return this.counters.reservations.release(id, { ...options, owner: ownerOf(access) });
  }

  /**
   * The holes of a sequence the caller has read: ids not stored for a reserved one (`userid`),
   * unconfirmed values for a gapless one; null for any other, whose use the service cannot see.
   */
  async gaps(state: SequenceState, request: GapRequest): Promise<GapPage | null> {
    assertGapRequest(request);
    const reserved = this.reservedOf(state);
    if (reserved !== undefined) return reserved.gaps(request);
    return state.gapless ? this.counters.reservations.gaps(state, request) : null;
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
    const resolved = resolveKey(key);
    const read = async () => {
      const state = await this.get(key, access);
      if (state === null) throw new SequenceNotFoundError(describeKey(resolved));
      return state;
    };
    await read();
    return this.counters.changes.watch(resolved, after, read);
  }

  /** The value the next allocation of an existing sequence will return; nothing is written. */
  async peekNext(key: SequenceKey, access: SequenceAccess): Promise<number> {
    const reserved = this.reservedOf(key);
    return this.counters.peekNext(key, {
      owner: reserved === undefined ? ownerOf(access) : undefined,
      mayCreate: reserved !== undefined,
    });
  }

  /** The reserved sequence `key` names, if any. */
  private reservedOf(key: SequenceKey): ReservedSequence | undefined {
    return (key.scope ?? null) === null ? this.reserved.get(key.name) : undefined;
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
