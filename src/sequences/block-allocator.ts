/**
 * BlockAllocator: the BLOCK strategy (Hibernate's pooled-lo, PostgreSQL's sequence `CACHE`,
 * Meituan Leaf's segment mode). Per process and per sequence, it reserves a block of values with
 * one allocation, hands them out locally, and fetches the next block before this one runs out.
 *
 * Invariants:
 * - Every value handed out was consumed from the counter by an allocation of this allocator, and
 *   each is handed out once, so ids are unique across processes (not in time order across them).
 *   The one exception is a value given back with `giveBack()`: the caller vouches that it stored it
 *   nowhere, so it is as unused as the block and the next take hands it out again (lowest first,
 *   before the block), so a refused insert leaves no gap. No other process ever saw it.
 * - At most one allocation is in flight per allocator. Refill ahead: when a take served from held
 *   values leaves less than half of the current block, the next block is allocated in the
 *   background and held apart until the current one is used up, so in steady state (no more takes
 *   during one allocation's round trip than half a block) no take waits for the database. A take that finds nothing held waits for the allocation in flight
 *   and shares its block (300 concurrent takes of 1 with blocks of 100 cost 3 allocations), or its
 *   failure: when the database is down they fail together instead of retrying one by one. Such a
 *   wait is counted (`refillsAwaited`). A background allocation that fails is only forgotten: the
 *   next take that needs values allocates again and reports the failure.
 * - Block size adapts to the creation rate: each allocation takes about what this process handed
 *   out over the last `lifetimeMs` (measured since the previous allocation), within
 *   [`minBlockSize`, `maxBlockSize`]: few gaps at low rates, one counter write per many users at
 *   high rates. With `minBlockSize === maxBlockSize` the size is fixed.
 * - A take of n values beyond what is held takes all of it plus ONE allocation of
 *   max(still needed, block size); whatever that allocation leaves over becomes the block. So a
 *   batch of 1,000 costs one allocation, not ten. Near `max`, when a whole block no longer fits,
 *   the allocation shrinks to exactly what is needed (and a refill ahead is skipped).
 * - The command of an allocation is added to the tally of the take that caused it, also for a
 *   refill ahead (counted when sent, before the take returns), so commands per user stay honest.
 * - `discardBlock()` abandons the held blocks, the values given back so far, and whatever an
 *   allocation in flight would have left over: values never handed out are gaps, never duplicates.
 *   A crash likewise only leaves gaps. Given-back values live apart from the blocks, so a refill
 *   landing later never loses or repeats them. A value given back after a discard is kept: like
 *   every value, it is a proposal that the unique index on `_id` decides.
 * - `close()` (clean shutdown, after the last take) gives back what it safely can: the run of held
 *   values that ends at the newest allocation's last value, with the counter's compare-and-set
 *   (`Sequences.releaseUnused`: only while that value is still the counter's latest, so nobody can
 *   hold anything above it). Whatever else it holds stays a gap, and it says how many.
 * - Every value it will never hand out is told to `onDropped` once, with its reason: `discarded`
 *   (by `discardBlock()`, also the rest of an allocation that lands after it) or `shutdown` (left
 *   unused by `close()`). A process that dies tells nothing: its block is a gap nobody counted.
 */
import { MongoError } from 'mongodb';
import type { CommandTally } from '../database/index';
import { VALUES_PER_ALLOCATION } from '../limits';
import { assertAllocationCount } from './definition';
import { SequenceExhaustedError } from './errors';
import type { SequenceKey } from './keys';
import { type AllocatedRange, type Sequences, valuesOf } from './sequences';

/** Why values reserved by a process will never be handed out (gaps): see `onDropped`. */
export type DroppedReason = 'discarded' | 'shutdown';

export interface BlockSizing {
  /** The smallest block, and the first one's size (ID_BLOCK_SIZE). */
  minBlockSize: number;
  /** The largest block (ID_BLOCK_SIZE_MAX); equal to `minBlockSize` for a fixed size. */
  maxBlockSize: number;
  /** How long a block should last at the current creation rate (default 10 s). */
  lifetimeMs?: number;
  /** Milliseconds, for the rate; `performance.now` unless a test drives time itself. */
  now?: () => number;
  /** Hears the values dropped for good (see the header), e.g. for the metrics. */
  onDropped?: (count: number, reason: DroppedReason) => void;
}

/** What `close()` did with the values this process held. */
export interface HeldValues {
  /** Given back to the counter: the next allocation, of any process, issues them again. */
  givenBack: number;
  /** Left as a gap: below a value issued since, or the give-back failed. */
  leftUnused: number;
}

const DEFAULT_LIFETIME_MS = 10_000;
/** A refill ahead starts when less than this share of the current block is left. */
const REFILL_AHEAD_BELOW = 0.5;

/** Consecutive values of a block not handed out yet: `next`, `next + step`, ... (`remaining`). */
interface HeldRun {
  next: number;
  step: number;
  remaining: number;
}

const EMPTY: HeldRun = { next: 0, step: 1, remaining: 0 };

function runOf(range: AllocatedRange, skip = 0): HeldRun {
  return {
    next: range.first + skip * range.step,
    step: range.step,
    remaining: range.count - skip,
  };
}

export class BlockAllocator {
  /** The block values are handed out from. */
  private current: HeldRun = EMPTY;
  /** Its size when allocated, for the refill-ahead threshold. */
  private currentSize = 0;
  /** The block a refill ahead fetched, untouched until `current` is used up. */
  private ahead: AllocatedRange | null = null;
  /** Values handed out and given back unused, ascending; taken before the blocks. */
  private givenBack: number[] = [];
  /** The allocation in flight: resolves once it has stored its block, rejects with its failure. */
  private inFlight: Promise<void> | null = null;
  /** Bumped by `discardBlock()`, so an allocation started before it stores no block. */
  private generation = 0;
  /** The last value of the newest allocation whose values this allocator still holds. */
  private newestLast: number | null = null;
  private lastAllocationAt: number | null = null;
  private handedOutSinceAllocation = 0;
  private awaited = 0;
  private readonly minBlockSize: number;
  private readonly maxBlockSize: number;
  private readonly lifetimeMs: number;
  private readonly now: () => number;
  private readonly onDropped: (count: number, reason: DroppedReason) => void;

  constructor(
    private readonly sequences: Sequences,
    private readonly key: SequenceKey,
    sizing: BlockSizing,
  ) {
    const { minBlockSize, maxBlockSize } = sizing;
    for (const size of [minBlockSize, maxBlockSize]) {
      if (!Number.isInteger(size) || size < 1 || size > VALUES_PER_ALLOCATION) {
        throw new RangeError(
          `block sizes must be whole numbers from 1 to ${VALUES_PER_ALLOCATION}`,
        );
      }
    }
    if (maxBlockSize < minBlockSize) throw new RangeError('maxBlockSize is below minBlockSize');
    this.minBlockSize = minBlockSize;
    this.maxBlockSize = maxBlockSize;
    this.lifetimeMs = sizing.lifetimeMs ?? DEFAULT_LIFETIME_MS;
    this.now = sizing.now ?? (() => performance.now());
    this.onDropped = sizing.onDropped ?? (() => undefined);
  }

  /** Takes that found nothing held and waited for an allocation, since this allocator started. */
  get refillsAwaited(): number {
    return this.awaited;
  }

  /** `count` unused values of the sequence; the command of an allocation is added to `tally`. */
  async take(count: number, tally?: CommandTally): Promise<number[]> {
    assertAllocationCount(count);
    const ids: number[] = [];
    let waited = false;
    for (;;) {
      this.takeHeld(ids, count - ids.length);
      if (ids.length === count) {
        this.refillAheadIfLow(tally);
        return ids;
      }
      if (!waited) this.awaited += 1;
      waited = true;
      if (this.inFlight === null) {
        ids.push(...(await this.reserve(count - ids.length, tally)));
        return ids;
      }
      await this.inFlight;
    }
  }

  /**
   * Returns values that `take` handed out and that were stored nowhere (e.g. their insert was
   * refused for the email), so the next takes hand them out again.
   */
  giveBack(values: number[]): void {
    if (values.length === 0) return;
    this.givenBack = [...this.givenBack, ...values].sort((a, b) => a - b);
  }

  discardBlock(): void {
    this.dropHeld('discarded');
  }

  /** Empties the allocator; what it held is told to `onDropped` with `reason`. */
  private dropHeld(reason: DroppedReason, count = this.heldCount()): void {
    if (count > 0) this.onDropped(count, reason);
    this.current = EMPTY;
    this.ahead = null;
    this.givenBack = [];
    this.newestLast = null;
    this.generation += 1;
  }

  /**
   * For a clean shutdown, after the last take: waits for an allocation in flight, gives back what
   * is safe (see the header) and empties the allocator. A database that cannot be reached leaves
   * everything unused; it never throws for that.
   */
  async close(): Promise<HeldValues> {
    await this.inFlight?.catch(() => undefined);
    const held = new Set(this.givenBack);
    const { step } = this.current;
    for (let i = 0; i < this.current.remaining; i += 1) held.add(this.current.next + i * step);
    if (this.ahead !== null) for (const value of valuesOf(this.ahead)) held.add(value);
    let count = 0;
    if (this.newestLast !== null) {
      while (held.has(this.newestLast - count * step)) count += 1;
    }
    let givenBack = 0;
    if (count > 0 && this.newestLast !== null) {
      const last = this.newestLast;
      const tail = { first: last - (count - 1) * step, last, step, count };
      try {
        if (await this.sequences.releaseUnused(this.key, tail)) givenBack = count;
      } catch (err) {
        if (!(err instanceof MongoError)) throw err;
      }
    }
    const leftUnused = held.size - givenBack;
    this.dropHeld('shutdown', leftUnused);
    return { givenBack, leftUnused };
  }

  private heldCount(): number {
    return this.givenBack.length + this.current.remaining + (this.ahead?.count ?? 0);
  }

  /** Up to `wanted` held values (given back first, then the blocks), appended to `ids`. */
  private takeHeld(ids: number[], wanted: number): void {
    const reused = this.givenBack.splice(0, wanted);
    ids.push(...reused);
    let missing = wanted - reused.length;
    while (missing > 0) {
      if (this.current.remaining === 0) {
        if (this.ahead === null) return;
        this.useAhead();
      }
      const taken = Math.min(missing, this.current.remaining);
      const { next, step } = this.current;
      for (let i = 0; i < taken; i += 1) ids.push(next + i * step);
      this.current = { next: next + taken * step, step, remaining: this.current.remaining - taken };
      this.handedOutSinceAllocation += taken;
      missing -= taken;
    }
  }

  private useAhead(): void {
    if (this.ahead === null) return;
    this.current = runOf(this.ahead);
    this.currentSize = this.ahead.count;
    this.ahead = null;
  }

  /** Starts the next block's allocation when little is left, none is held or in flight. */
  private refillAheadIfLow(tally: CommandTally | undefined): void {
    if (this.inFlight !== null || this.ahead !== null) return;
    if (this.current.remaining >= this.currentSize * REFILL_AHEAD_BELOW) return;
    const generation = this.generation;
    const allocation = this.allocate(this.nextBlockSize(), tally).then(
      (range) => {
        if (generation === this.generation) {
          this.ahead = range;
          this.newestLast = range.last;
        } else this.onDropped(range.count, 'discarded');
      },
      // Near `max` or with the database away: the take that runs dry allocates and reports it.
      () => undefined,
    );
    this.track(allocation);
  }

  /** One allocation for a take that waits: the first `needed` values go to it, the rest are held. */
  private reserve(needed: number, tally: CommandTally | undefined): Promise<number[]> {
    const generation = this.generation;
    const size = Math.max(needed, this.nextBlockSize());
    const reserved = this.allocate(size, tally, needed).then((range) => {
      const own = valuesOf({ ...range, count: needed });
      this.handedOutSinceAllocation += needed;
      if (generation === this.generation) {
        this.current = runOf(range, needed);
        this.currentSize = range.count;
        this.newestLast = range.last;
      } else if (range.count > needed) this.onDropped(range.count - needed, 'discarded');
      return own;
    });
    this.track(reserved);
    return reserved;
  }

  /** Makes `allocation` the one in flight until it settles; waiters see its failure. */
  private track(allocation: Promise<unknown>): void {
    const inFlight = allocation.then(
      () => {
        this.inFlight = null;
      },
      (err: unknown) => {
        this.inFlight = null;
        throw err;
      },
    );
    // Handled here so a failure nobody waits for is not an unhandled rejection; waiters still see it.
    inFlight.catch(() => undefined);
    this.inFlight = inFlight;
  }

  /** What this process hands out in `lifetimeMs` at the rate since the last allocation, clamped. */
  private nextBlockSize(): number {
    const now = this.now();
    const since = this.lastAllocationAt;
    const handedOut = this.handedOutSinceAllocation;
    this.lastAllocationAt = now;
    this.handedOutSinceAllocation = 0;
    if (since === null || now <= since) return this.minBlockSize;
    const wanted = Math.round((handedOut * this.lifetimeMs) / (now - since));
    return Math.min(this.maxBlockSize, Math.max(this.minBlockSize, wanted));
  }

  /** `size` values, or exactly `needed` when `size` would pass the sequence's max. */
  private async allocate(
    size: number,
    tally: CommandTally | undefined,
    needed = size,
  ): Promise<AllocatedRange> {
    try {
      return await this.sequences.allocate(this.key, size, tally);
    } catch (err) {
      if (!(err instanceof SequenceExhaustedError) || size === needed) throw err;
      return this.sequences.allocate(this.key, needed, tally);
    }
  }
}
