/**
 * The sequences component: named counters in the `counters` collection (definitions with start,
 * step, max, scope and owner, display formats and periods that restart them by the database's
 * clock; atomic allocation; peek; pages; set; drift repair), the catalog that
 * callers go through (ownership, reserved sequences), gapless sequences' reservations, the holes of
 * a sequence (gaps) and the per-process BLOCK allocator. Other
 * components import from here only.
 */
export {
  BlockAllocator,
  type BlockSizing,
  type DroppedReason,
  type HeldValues,
} from './block-allocator';
export {
  SequenceCatalog,
  type IssuedRange,
  type IssuedReservation,
  type ReservedSequence,
  type SequenceAccess,
} from './catalog';
export type { SequenceState } from './counter-document';
export { MAX_SEQUENCE_VALUE, type DefinitionInput, type SequenceDefinition } from './definition';
export {
  SequenceContentionError,
  SequenceCorruptError,
  SequenceExhaustedError,
  SequenceNotFoundError,
  ReservationNotFoundError,
} from './errors';
export {
  type GapKind,
  type GapPage,
  type GapRequest,
  type SequenceGap,
  assertGapRequest,
  gapPage,
} from './gaps';
export type { NamespaceMove } from './namespaces';
export { SEQUENCE_PERIODS, type SequencePeriod } from './periods';
export type { Reservation } from './reservations';
export { type SequenceKey, validateSequenceName } from './keys';
export { type ListedSequence, type SequencePage, type SequencePageRequest } from './pages';
export { type AllocatedRange, Sequences, type SequencesOptions, valuesOf } from './sequences';
