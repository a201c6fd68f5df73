/**
 * BlockAllocator: the hi/lo-style BLOCK strategy. Per process and per sequence, it reserves
 * `blockSize` values with one allocation and hands them out locally.
 *
 * Invariants:
 * - Every value handed out was consumed from the counter by an allocation of this allocator, and
 *   each is handed out once, so ids are unique across processes (not in time order across them).
 *   The one exception is a value given back with `giveBack()`: the caller vouches that it stored it
 *   nowhere, so it is as unused as the block and the next take hands it out again (lowest first,
 *   before the block), so a refused insert leaves no gap. No other process ever saw it.
 * - At most one refill is in flight: callers that find the block empty while a refill runs wait for
 *   it and share its block (300 concurrent takes of 1 with block size 100 cost 3 allocations), or
 *   its failure: when the database is down they fail together instead of retrying one by one.
 * - A take of n values beyond what is left takes the rest of the block plus ONE allocation of
 *   max(still needed, blockSize); whatever that allocation leaves over becomes the new block. So a
 *   batch of 1,000 costs one allocation, not ten. Near `max`, when a whole block no longer fits,
 *   the allocation shrinks to exactly what is needed.
 * - `discardBlock()` abandons the block, the values given back so far, and whatever a refill in
 *   flight would have left over: values never handed out are gaps, never duplicates. A crash
 *   likewise only leaves gaps. Given-back values live apart from the block, so a refill landing
 *   later (which replaces the block) never loses or repeats them. A value given back after a
 *   discard is kept: like every value, it is a proposal that the unique index on `_id` decides.
 */
import type { CommandTally } from '../errors.js';
import { MAX_ALLOCATION_COUNT, assertAllocationCount } from './definition.js';
import { SequenceExhaustedError } from './errors.js';
import type { SequenceKey } from './keys.js';
import type { AllocatedRange, Sequences } from './sequences.js';

export class BlockAllocator {
  private next = 0;
  private step = 1;
  private remaining = 0;
  /** Values handed out and given back unused, ascending; taken before the block. */
  private givenBack: number[] = [];
  /** The refill in flight: resolves once it has filled the block, rejects with its failure. */
  private refill: Promise<void> | null = null;
  /** Bumped by `discardBlock()`, so a refill started before it does not refill the block. */
  private generation = 0;

  constructor(
    private readonly sequences: Sequences,
    private readonly key: SequenceKey,
    private readonly blockSize: number,
  ) {
    if (!Number.isInteger(blockSize) || blockSize < 1 || blockSize > MAX_ALLOCATION_COUNT) {
      throw new RangeError(`blockSize must be a whole number from 1 to ${MAX_ALLOCATION_COUNT}`);
    }
  }

  /** `count` unused values of the sequence; the command of a refill is added to `tally`. */
  async take(count: number, tally?: CommandTally): Promise<number[]> {
    assertAllocationCount(count);
    const ids: number[] = [];
    for (;;) {
      this.takeHeld(ids, count - ids.length);
      if (ids.length === count) return ids;
      if (this.refill === null) {
        ids.push(...(await this.reserve(count - ids.length, tally)));
        return ids;
      }
      await this.refill;
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
    this.remaining = 0;
    this.givenBack = [];
    this.generation += 1;
  }

  /** Up to `wanted` values held locally (given back first, then the block), appended to `ids`. */
  private takeHeld(ids: number[], wanted: number): void {
    const reused = this.givenBack.splice(0, wanted);
    ids.push(...reused);
    const taken = Math.min(wanted - reused.length, this.remaining);
    for (let i = 0; i < taken; i += 1) ids.push(this.next + i * this.step);
    this.next += taken * this.step;
    this.remaining -= taken;
  }

  /** One allocation: the first `needed` values go to the caller, the rest become the block. */
  private reserve(needed: number, tally: CommandTally | undefined): Promise<number[]> {
    const generation = this.generation;
    const reserved = this.allocate(needed, tally).then((range) => {
      const own = Array.from({ length: needed }, (_, i) => range.first + i * range.step);
      if (generation === this.generation) {
        this.next = range.first + needed * range.step;
        this.step = range.step;
        this.remaining = range.count - needed;
      }
      return own;
    });
    const refill = reserved.then(
      () => {
        this.refill = null;
      },
      (err: unknown) => {
        this.refill = null;
        throw err;
      },
    );
    // Handled here so a failure nobody waits for is not an unhandled rejection; waiters still see it.
    refill.catch(() => undefined);
    this.refill = refill;
    return reserved;
  }

  private async allocate(needed: number, tally: CommandTally | undefined): Promise<AllocatedRange> {
    const size = Math.max(needed, this.blockSize);
    try {
      return await this.sequences.allocate(this.key, size, tally);
    } catch (err) {
      if (!(err instanceof SequenceExhaustedError) || size === needed) throw err;
      return this.sequences.allocate(this.key, needed, tally);
    }
  }
}
