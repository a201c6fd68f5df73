/**
 * Holes in a sequence, as an auditor asks for them: runs of values that are not (yet) in use, lowest
 * first, a bounded page at a time.
 *
 * Who knows the holes: a gapless sequence knows its unconfirmed values (./reservations.ts); the
 * component a reserved sequence feeds knows which ids it stored (`userid`: the users component).
 * Of any other sequence the service cannot know which values its clients used, so it lists none.
 */
import { GAPS } from '../limits';
import { assertSequenceValue } from './definition';
import { BadUserInputError } from './errors';

/** Why a run of values is a hole. */
export type GapKind =
  /** Handed out to a client that has neither confirmed nor released it, its hold still running. */
  | 'RESERVED'
  /** Released, or its hold expired: the next allocation hands it out again. */
  | 'RELEASED'
  /** Issued as an id but no document holds it (a failed insert, a crash, a deletion). */
  | 'MISSING';

/** The values `first`, `first + step`, ..., `last` (`count` of them), all missing for one reason. */
export interface SequenceGap {
  first: number;
  last: number;
  count: number;
  kind: GapKind;
}

export interface GapRequest {
  /** Only values above this one (the previous page's `scannedThrough`). */
  after?: number | null;
  /** At most this many runs: 1 to 100. */
  first: number;
}

export interface GapPage {
  runs: SequenceGap[];
  /** Every value up to this one was examined; pass it as `after` for the next page. */
  scannedThrough: number;
  /** True when nothing above `scannedThrough` remains to examine. */
  complete: boolean;
}

/** Throws BAD_USER_INPUT naming the argument unless `first` and `after` are usable. */
export function assertGapRequest(request: GapRequest): void {
  if (!Number.isInteger(request.first) || request.first < 1 || request.first > GAPS.perPage) {
    throw new BadUserInputError(`first must be 1 to ${GAPS.perPage}.`, { field: 'first' });
  }
  if (request.after !== undefined && request.after !== null) {
    assertSequenceValue(request.after, 'after');
  }
}

/**
 * The runs of `values` (ascending, each with its kind), merged where consecutive values (`step`
 * apart) share a kind, above `after`, at most `first` of them.
 */
export function gapPage(
  values: Array<{ value: number; kind: GapKind }>,
  step: number,
  request: GapRequest,
  top: number,
): GapPage {
  const after = request.after ?? -Infinity;
  const runs: SequenceGap[] = [];
  for (const { value, kind } of values) {
    if (value <= after) continue;
    const last = runs.at(-1);
    if (last !== undefined && last.kind === kind && last.last + step === value) {
      last.last = value;
      last.count += 1;
      continue;
    }
    if (runs.length === request.first) {
      return { runs, scannedThrough: last?.last ?? top, complete: false };
    }
    runs.push({ first: value, last: value, count: 1, kind });
  }
  return { runs, scannedThrough: Math.max(top, request.after ?? top), complete: true };
}
