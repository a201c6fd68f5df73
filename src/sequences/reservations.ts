/**
 * `Reservations`: the values of gapless sequences, from allocation to confirmation. A gapless
 * sequence is a counter document with `holdSeconds` (./definition.ts); this module alone writes its
 * `seq`, `pending` and `rev`.
 *
 * Contract and invariants:
 * - Every value from `start` to `seq` is either confirmed or in `pending`: held by one token until
 *   its expiry, or free (released, or its hold expired). A value leaves `pending` only by its
 *   confirmation. So the confirmed values and the pending ones together are always exactly
 *   start..seq, whatever fails and wherever a process dies, and `gaps` lists the pending ones.
 * - An allocation hands out the lowest free value before any new one; a free value at the top is
 *   dropped and `seq` lowered, so the next new value takes its place. Once every client has
 *   confirmed or released what it took and the free values were handed out again, the confirmed
 *   values are start..seq with no hole. The price: values are not issued in time order (a value
 *   handed out again is lower than values issued before it), and a client that writes its document
 *   after its hold expired may find its value confirmed by another (its confirmation then fails
 *   with RESERVATION_NOT_FOUND and it must take a new value).
 * - A confirmation succeeds only for the token that holds the value now (also past the expiry while
 *   nobody took the value), so a value is confirmed at most once.
 * - Every change is one update of the counter document, hence atomic: a compare-and-set on `rev`,
 *   which every write bumps. Two instances never hand one value to two tokens, and a crash leaves
 *   the document as it was before or after a change, never between.
 * - In one process, changes to one sequence take turns (a lock per sequence), so the compare only
 *   fails when another instance wrote in between. Each process plans from the document as its last
 *   change left it (one command per change while no other instance writes); a failed compare
 *   re-reads it and tries again at once, then with jittered backoff, bounded, then ID_CONTENTION
 *   with nothing changed. The remembered document is only a guess: the compare checks it.
 * - Bounds: one value per allocation, at most `GAPLESS.pendingValues` (src/limits.ts) unconfirmed values per sequence
 *   (then TOO_MANY_RESERVATIONS, retryable, nothing issued), gap pages of at most 100 runs. Every
 *   command carries `maxTimeMS` and the configured write concern (the collection's).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { Mutex } from 'async-mutex';
import { LRUCache } from 'lru-cache';
import { GAPLESS } from '../limits';
import type { Filter } from 'mongodb';
import { beforeWrite, type BoundedCollection, type WriteOptions } from '../database/index';
import {
  type CounterDocument,
  type PendingValue,
  type SequenceState,
  definitionOf,
  storedInteger,
  storedPending,
  storedSeq,
  toLong,
  toState,
} from './counter-document';
import { limitOf } from './definition';
import {
  BadUserInputError,
  SequenceContentionError,
  SequenceExhaustedError,
  SequenceNotFoundError,
  ReservationNotFoundError,
  TooManyReservationsError,
} from './errors';
import { type GapPage, type GapRequest, assertGapRequest, gapPage } from './gaps';
import { type ResolvedKey, describeKey, parseSequenceId } from './keys';

/** A value handed out by a gapless sequence, to be confirmed or released with `id`. */
export interface Reservation {
  /** `<sequence id>:<value>:<token>`: names the sequence, the value and who holds it. */
  id: string;
  value: number;
  expiresAt: Date;
}

/** Compare-and-set rounds lost to other instances before ID_CONTENTION. */
const MAX_ATTEMPTS = 8;

/** A value the next allocation may hand out again: released, or its hold expired by `now`. */
const isFree = (entry: PendingValue, now: number) => entry.expiresAt.getTime() <= now;

export class Reservations {
  private readonly locks = new Map<string, Mutex>();
  /** The counter as this process's last change or read saw it, per sequence (bounded). */
  private readonly lastSeen = new LRUCache<string, CounterDocument>({ max: 1_000 });

  constructor(
    private readonly counters: BoundedCollection<CounterDocument>,
    private readonly onCounterWrite?: (key: ResolvedKey, doc: CounterDocument) => void,
  ) {}

  /**
   * Hands out one value of the gapless sequence `key`: the lowest free one, else `seq + step`, held
   * for the sequence's `holdSeconds`. Null when the stored counter is not gapless (the caller's
   * cached definition is stale); SEQUENCE_NOT_FOUND for another owner's.
   */
  reserve(
    key: ResolvedKey,
    count: number,
    guard: WriteOptions & { owner?: string },
  ): Promise<{ reservation: Reservation; doc: CounterDocument } | null> {
    if (count !== 1) {
      throw new BadUserInputError(
        `A gapless sequence hands out one value per allocation, each confirmed on its own; count must be 1.`,
        { field: 'count' },
      );
    }
    return this.change(key, guard, (doc, now) => {
      const definition = definitionOf(doc);
      if (definition.holdSeconds === null) return null;
      let seq = storedSeq(doc);
      const pending = storedPending(doc);
      const token = randomBytes(12).toString('base64url');
      const expiresAt = new Date(now + definition.holdSeconds * 1000);
      const reused = pending.findIndex((entry) => isFree(entry, now));
      let value: number;
      if (reused >= 0) {
        value = pending[reused].value.toNumber();
        pending[reused] = { value: pending[reused].value, token, expiresAt };
      } else {
        if (pending.length >= GAPLESS.pendingValues) {
          throw new TooManyReservationsError(
            `Sequence ${describeKey(key)} has ${GAPLESS.pendingValues} values waiting for confirmation; confirm or release some (or wait for their holds to expire), then retry.`,
          );
        }
        value = seq + definition.step;
        if (value > limitOf(definition)) {
          throw new SequenceExhaustedError(
            `Sequence ${describeKey(key)} cannot issue another value: its limit is ${limitOf(definition)} and every value up to it is confirmed or held. Nothing was consumed.`,
          );
        }
        seq = value;
        pending.push({ value: toLong(value), token, expiresAt });
      }
      const reservation = { id: `${key.id}:${value}:${token}`, value, expiresAt };
      return { seq: settle(pending, seq, definition.step, now), pending, result: reservation };
    });
  }

  /** Confirms a reservation: its value is used for good. Answers the value and the sequence after. */
  confirm(id: string, guard: WriteOptions & { owner?: string }) {
    return this.settleReservation(id, guard, (pending, index) => pending.splice(index, 1));
  }

  /** Releases a reservation unused: its value is handed out again before any new one. */
  release(id: string, guard: WriteOptions & { owner?: string }) {
    return this.settleReservation(id, guard, (pending, index) => {
      pending[index] = { value: pending[index].value, token: null, expiresAt: new Date(0) };
    });
  }

  /**
   * The unconfirmed values of the gapless sequence `state` (as read a moment ago), as runs: RESERVED
   * while held, else RELEASED. One read; at most `GAPLESS.pendingValues` values to look at.
   */
  async gaps(state: SequenceState, request: GapRequest): Promise<GapPage> {
    assertGapRequest(request);
    const doc = await this.counters.collection.findOne({ _id: state.id }, this.counters.options());
    if (doc === null) return { runs: [], scannedThrough: state.value, complete: true };
    const now = Date.now();
    const values = storedPending(doc).map((entry) => ({
      value: entry.value.toNumber(),
      kind: isFree(entry, now) ? ('RELEASED' as const) : ('RESERVED' as const),
    }));
    return gapPage(values, state.step, request, storedSeq(doc));
  }

  private async settleReservation(
    id: string,
    guard: WriteOptions & { owner?: string },
    apply: (pending: PendingValue[], index: number) => void,
  ): Promise<{ value: number; sequence: SequenceState }> {
    const { key, value, token } = parseReservationId(id);
    const settled = await this.change(key, guard, (doc, now) => {
      const definition = definitionOf(doc);
      const pending = storedPending(doc);
      const index = pending.findIndex(
        (entry) => entry.token === token && entry.value.toNumber() === value,
      );
      if (definition.holdSeconds === null || index < 0) {
        throw new ReservationNotFoundError(
          `Reservation ${id} holds no value now: it was confirmed or released already, or its hold expired and value ${value} was handed out again. Nothing changed.`,
          { field: 'id' },
        );
      }
      apply(pending, index);
      return {
        seq: settle(pending, storedSeq(doc), definition.step, now),
        pending,
        result: value,
      };
    });
    if (settled === null) throw new Error('unreachable: a settled reservation always writes');
    return { value: settled.reservation, sequence: toState(key, settled.doc) };
  }

  /**
   * One change of a gapless counter: read it, let `plan` compute its new `seq` and `pending` (or
   * null: no change, or throw), write them if `rev` is still what was read; repeated when another
   * instance wrote in between. Changes of one sequence in this process take turns.
   */
  private async change<T>(
    key: ResolvedKey,
    guard: WriteOptions & { owner?: string },
    plan: (
      doc: CounterDocument,
      now: number,
    ) => { seq: number; pending: PendingValue[]; result: T } | null,
  ): Promise<{ reservation: T; doc: CounterDocument } | null> {
    return this.exclusive(key.id, async () => {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
        const remembered = this.lastSeen.get(key.id);
        this.lastSeen.delete(key.id);
        const doc =
          remembered ??
          (await this.counters.collection.findOne({ _id: key.id }, this.counters.options()));
        if (doc === null || (guard.owner !== undefined && doc.owner !== guard.owner)) {
          throw new SequenceNotFoundError(describeKey(key));
        }
        const now = Date.now();
        let planned: ReturnType<typeof plan>;
        try {
          planned = plan(doc, now);
        } catch (err) {
          // A refusal (no such reservation, too many, exhausted) is only final on a fresh read.
          if (remembered === undefined) throw err;
          attempt -= 1;
          continue;
        }
        if (planned === null) return null;
        beforeWrite(guard);
        const rev = doc.rev === undefined ? 0 : storedInteger(doc, 'rev', doc.rev);
        const written = await this.counters.collection.findOneAndUpdate(
          {
            _id: key.id,
            rev: doc.rev === undefined ? { $exists: false } : toLong(rev),
          } as Filter<CounterDocument>,
          {
            $set: {
              seq: toLong(planned.seq),
              pending: planned.pending,
              rev: toLong(rev + 1),
              updatedAt: new Date(now),
            },
          },
          this.counters.options({ returnDocument: 'after' as const }),
        );
        if (written !== null) {
          this.lastSeen.set(key.id, written);
          this.onCounterWrite?.(key, written);
          return { reservation: planned.result, doc: written };
        }
        if (remembered === undefined || attempt > 1) await sleep(Math.random() * 2 ** attempt * 5);
      }
      throw new SequenceContentionError(
        `Sequence ${describeKey(key)} was changed by other instances ${MAX_ATTEMPTS} times in a row; nothing changed, please retry.`,
      );
    });
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

/**
 * Drops free values from the top of `pending` (sorted), lowering `seq` by `step` for each, so the
 * next new value takes their place; answers the new `seq`.
 */
function settle(pending: PendingValue[], seq: number, step: number, now: number): number {
  let top = seq;
  while (pending.length > 0) {
    const last = pending[pending.length - 1];
    if (last.value.toNumber() !== top || !isFree(last, now)) break;
    pending.pop();
    top -= step;
  }
  return top;
}

/** The sequence, value and token a reservation id names; a malformed one is RESERVATION_NOT_FOUND. */
function parseReservationId(id: string): { key: ResolvedKey; value: number; token: string } {
  const [sequenceId = '', value = '', token = '', ...rest] = id.split(':');
  const number = Number(value);
  if (
    rest.length === 0 &&
    /^-?\d{1,16}$/.test(value) &&
    Number.isSafeInteger(number) &&
    /^[A-Za-z0-9_-]{16}$/.test(token)
  ) {
    return { key: parseSequenceId(sequenceId, 'id'), value: number, token };
  }
  throw new BadUserInputError(
    'id must be the id of a reservation, as allocateSequence answered it.',
    {
      field: 'id',
    },
  );
}
