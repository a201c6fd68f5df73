/**
 * Per-statement failures of insert/update/delete, in mongod's writeErrors element shape:
 * `{ index, code, keyPattern?, keyValue?, errmsg }` (no codeName, as mongod sends it).
 * Anything that is not a CommandError is a stand-in bug and is rethrown, never swallowed.
 */
import { CommandError } from '../engine/errors';
import { Document } from '../engine/values';

export function writeErrorOf(error: unknown, index: number): Document {
  if (!(error instanceof CommandError)) throw error;
  return { index, code: error.code, ...error.extra, errmsg: error.message };
}

/** Collects statement failures; ordered writes stop at the first. Returns whether to go on. */
export class WriteErrors {
  readonly list: Document[] = [];
  constructor(private readonly ordered: boolean) {}

  record(error: unknown, index: number): boolean {
    this.list.push(writeErrorOf(error, index));
    return !this.ordered;
  }

  /** Adds `writeErrors` to a reply when there were any. */
  decorate(reply: Document): Document {
    return this.list.length > 0 ? { ...reply, writeErrors: this.list } : reply;
  }
}
