/**
 * The sequences component: named counters in the `counters` collection (definitions with start,
 * step, max and scope; atomic allocation; peek; list; set; drift repair) and the per-process BLOCK
 * allocator. Other components import from here only.
 */
export { BlockAllocator, type BlockSizing, type HeldValues } from './block-allocator.js';
export type { SequenceState } from './counter-document.js';
export { MAX_ALLOCATION_COUNT, MAX_SEQUENCE_VALUE, type SequenceDefinition } from './definition.js';
export { SequenceContentionError, SequenceExhaustedError } from './errors.js';
export { type SequenceKey, validateSequenceName } from './keys.js';
export { type AllocatedRange, Sequences, type SequencesOptions, valuesOf } from './sequences.js';
