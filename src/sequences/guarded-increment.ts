/**
 * The guarded `$inc` of an allocation (./sequences.ts says what it guards and why), as the parts of
 * its `findOneAndUpdate`: the filter, the update without its time, and the options.
 *
 * Why kept: the parts depend only on the counter, its cached definition, the owner asked for, the
 * amount and whether it may be created, and nearly every allocation repeats the one before it (a
 * `createUser` always takes 1 from `userid`, implicit). Building them each time was seven objects
 * and four Int64s per allocation; now it is the update's one `$set` of `updatedAt`.
 *
 * Invariants: the parts of a shape are built by `buildParts` alone, so a kept part and a new one
 * are the same command; they are frozen, so sharing them between concurrent commands is safe (the
 * driver only reads them); a part is used only for exactly the shape it was built for (every input
 * is compared), and at most `KEPT_SHAPES` shapes are kept (all forgotten when full), so many
 * sequences cost memory no longer than their allocations run.
 *
 * A periodic sequence (./periods.ts) is advanced by a pipeline-style update instead, so that the
 * database's clock decides the period in the same atomic step: MongoDB computes the key of the
 * period `$$NOW` falls in (`$dateToString` in the sequence's zone); a key after the stored
 * `currentPeriod` starts that period (`seq` restarts at `start`), any other continues the stored
 * one (a clock behind it never moves the period back), keeping the ended period's last value in
 * `endedPeriod` until ./sequences.ts archives it. The filter lets an exhausted period through only
 * when a new one starts, and a new one start only once the last ended one is archived.
 */
import type { ClientSession, Document } from 'mongodb';
import { definitionFields, toLong } from './counter-document';
import { limitOf, MAX_SEQUENCE_VALUE, type SequenceDefinition } from './definition';
import type { ResolvedKey } from './keys';
import {
  endedPeriodWhen,
  NO_ENDED_PERIOD,
  type PeriodClock,
  periodClockOf,
  periodNow,
  startsPeriod,
} from './periods';

/** The Int64 values a counter field may hold: whole numbers within ±(2^53 - 1). */
const SAFE_RANGE = Object.freeze({
  $gte: toLong(-MAX_SEQUENCE_VALUE),
  $lte: toLong(MAX_SEQUENCE_VALUE),
});

/** Shapes kept at once; past it, all are forgotten and built again as they come. */
export const KEPT_SHAPES = 256;

/** What decides a guarded `$inc`'s command. */
export interface IncrementShape {
  key: ResolvedKey;
  definition: SequenceDefinition;
  /** `step * count`. */
  delta: number;
  /** Only the counter of this owner; undefined: any. */
  owner: string | undefined;
  /** Whether an absent counter is created (an implicit definition that may be created). */
  upsert: boolean;
}

interface IncrementParts {
  filter: Document;
  /** The update, but for `$set: { updatedAt }`, which is the time of each command. */
  inc: Document;
  /** A periodic sequence's whole update, a pipeline that reads the database's clock. */
  pipeline: Document[] | undefined;
  setOnInsert: Document | undefined;
  options: { upsert: boolean; returnDocument: 'after'; maxTimeMS: number };
}

interface Kept {
  shape: IncrementShape;
  parts: IncrementParts;
}

const frozen = <T extends object>(value: T): T => Object.freeze(value);

function buildParts(shape: IncrementShape, maxTimeMS: number): IncrementParts {
  const { key, definition, delta, owner, upsert } = shape;
  const limit = limitOf(definition);
  const periodic = periodClockOf(definition);
  return {
    filter: frozen({
      _id: key.id,
      ...(owner === undefined ? {} : { owner }),
      step: definition.step,
      max: definition.max === null ? frozen({ $exists: false }) : toLong(definition.max),
      holdSeconds: frozen({ $exists: false }),
      ...(periodic === null ? { period: frozen({ $exists: false }) } : periodic),
      // Only Int64s within range, so the counter reads as a sequence after the `$inc`; any other
      // (a string, NaN, a fraction, a double typed in mongosh) goes to `explainRefusal`, which
      // rewrites or refuses it before it moves. NaN sorts first, below the lower bound.
      start: frozen({ $type: 'long', ...SAFE_RANGE }),
      seq: frozen({
        $type: 'long',
        $gte: SAFE_RANGE.$gte,
        $lte: periodic === null ? toLong(limit - delta) : SAFE_RANGE.$lte,
      }),
      ...(periodic === null ? {} : periodicGuard(definition, periodic, delta)),
    }),
    inc: frozen({ seq: toLong(delta) }),
    pipeline: periodic === null ? undefined : periodicUpdate(definition, periodic, delta),
    setOnInsert: upsert ? frozen(definitionFields(key, definition)) : undefined,
    options: frozen({ upsert, returnDocument: 'after' as const, maxTimeMS }),
  };
}

/** `start - step + delta`: the stored `seq` after taking `delta` from a period's start. */
const firstOfPeriod = (definition: SequenceDefinition, delta: number) =>
  definition.start - definition.step + delta;

/**
 * The filter's `$expr` for a periodic sequence: room for `delta` in the stored period, or a new
 * period starting that has room for it.
 */
function periodicGuard(
  definition: SequenceDefinition,
  periodic: PeriodClock,
  delta: number,
): Document {
  const room = { $lte: ['$seq', toLong(limitOf(definition) - delta)] };
  const starts = startsPeriod(periodic);
  const fresh = firstOfPeriod(definition, delta) <= limitOf(definition);
  // No period ends while the last one ended is not archived yet (./periods.ts).
  const archived = { $or: [{ $not: [starts] }, NO_ENDED_PERIOD] };
  return { $expr: { $and: [fresh ? { $or: [room, starts] } : room, archived] } };
}

/** The update of a periodic sequence: start the clock's period, or continue the stored one. */
function periodicUpdate(
  definition: SequenceDefinition,
  periodic: PeriodClock,
  delta: number,
): Document[] {
  const starts = startsPeriod(periodic);
  return frozen([
    frozen({
      $set: {
        currentPeriod: {
          $cond: [starts, periodNow(periodic), '$currentPeriod'],
        },
        endedPeriod: endedPeriodWhen(starts),
        seq: {
          $cond: [
            starts,
            toLong(firstOfPeriod(definition, delta)),
            { $add: ['$seq', toLong(delta)] },
          ],
        },
        updatedAt: '$$NOW',
      },
    }),
  ]);
}

function sameShape(a: IncrementShape, b: IncrementShape): boolean {
  return (
    a.key.id === b.key.id &&
    a.key.name === b.key.name &&
    a.key.scope === b.key.scope &&
    a.delta === b.delta &&
    a.owner === b.owner &&
    a.upsert === b.upsert &&
    a.definition.start === b.definition.start &&
    a.definition.step === b.definition.step &&
    a.definition.max === b.definition.max &&
    a.definition.holdSeconds === b.definition.holdSeconds &&
    a.definition.period === b.definition.period &&
    a.definition.timeZone === b.definition.timeZone
  );
}

/** The guarded `$inc`'s commands of one `Sequences` (one `counters` collection). */
export class GuardedIncrements {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly maxTimeMS: number) {}

  /** The arguments of `findOneAndUpdate` for `shape`, written at `now`, in `session` if any. */
  command(
    shape: IncrementShape,
    now: Date,
    session: ClientSession | undefined,
  ): [filter: Document, update: Document | Document[], options: Document] {
    const { filter, inc, pipeline, setOnInsert, options } = this.partsOf(shape);
    const update =
      pipeline !== undefined
        ? pipeline
        : setOnInsert === undefined
          ? { $inc: inc, $set: { updatedAt: now } }
          : { $inc: inc, $set: { updatedAt: now }, $setOnInsert: setOnInsert };
    return [filter, update, session === undefined ? options : { ...options, session }];
  }

  private partsOf(shape: IncrementShape): IncrementParts {
    const kept = this.kept.get(shape.key.id);
    if (kept !== undefined && sameShape(kept.shape, shape)) return kept.parts;
    if (this.kept.size >= KEPT_SHAPES) this.kept.clear();
    const parts = buildParts(shape, this.maxTimeMS);
    this.kept.set(shape.key.id, {
      shape: { ...shape, key: { ...shape.key }, definition: { ...shape.definition } },
      parts,
    });
    return parts;
  }
}
