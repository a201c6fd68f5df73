/**
 * The stored shape of a counter and its reading as a `SequenceState`.
 *
 * Storage (docs/ARCHITECTURE.md): `{ _id, name, scope?, seq: Int64, start: Int64, step: Int32,
 * max?: Int64, updatedAt }`, where `seq` is the last value issued (`start - step` before the first).
 * The collection is read with `promoteLongs: false`, so Int64 fields arrive as `Long` and are
 * converted exactly (every stored value is within ±(2^53 - 1)). A counter written by the tutorial's
 * own shell commands (`{ _id, seq: 0 }`, a double, no definition) reads as the implicit definition.
 */
import { Long } from 'mongodb';
import { IMPLICIT_DEFINITION, type SequenceDefinition } from './definition.js';
import type { ResolvedKey } from './keys.js';

export interface CounterDocument {
  _id: string;
  name?: string;
  scope?: string;
  seq: Long | number;
  start?: Long | number;
  step?: number;
  max?: Long | number | null;
  updatedAt?: Date;
}

export interface SequenceState extends SequenceDefinition {
  name: string;
  scope: string | null;
  /** The last value issued; `start - step` when none has been issued yet. */
  value: number;
  /** The value the next allocation will return (past `max` once the sequence is exhausted). */
  next: number;
  updatedAt: Date | null;
}

export function toLong(value: number): Long {
  return Long.fromNumber(value);
}

export function fromLong(value: Long | number): number {
  return typeof value === 'number' ? value : value.toNumber();
}

export function definitionOf(doc: CounterDocument): SequenceDefinition {
  return {
    start: doc.start === undefined ? IMPLICIT_DEFINITION.start : fromLong(doc.start),
    step: doc.step ?? IMPLICIT_DEFINITION.step,
    max: doc.max === undefined || doc.max === null ? null : fromLong(doc.max),
  };
}

/** True when a counter lacks the stored definition or an Int64 `seq` (tutorial-era documents). */
export function isLegacyCounter(doc: CounterDocument): boolean {
  return doc.step === undefined || typeof doc.seq === 'number';
}

export function toState(key: ResolvedKey, doc: CounterDocument): SequenceState {
  const definition = definitionOf(doc);
  const value = fromLong(doc.seq);
  return {
    name: key.name,
    scope: key.scope,
    ...definition,
    value,
    next: value + definition.step,
    updatedAt: doc.updatedAt ?? null,
  };
}

/** The fields a counter gets when it is first written, besides `seq`. */
export function definitionFields(key: ResolvedKey, definition: SequenceDefinition) {
  return {
    name: key.name,
    ...(key.scope === null ? {} : { scope: key.scope }),
    start: toLong(definition.start),
    step: definition.step,
    ...(definition.max === null ? {} : { max: toLong(definition.max) }),
  };
}
