/**
 * A collection together with the bound every command on it carries.
 *
 * Why: the driver (7.9) ignores the client-wide `timeoutMS`, so the server-side bound of a command
 * is its own `maxTimeMS` (DB_TIMEOUT_MS); the socket timeout only bounds the wait on the network.
 * A component builds the options of each command with `options()`, so no command of it is sent
 * without the bound.
 */
import type { Collection, Document } from 'mongodb';

export interface BoundedCollection<T extends Document> {
  readonly collection: Collection<T>;
  /** The options of one command: `extra` plus the bound. */
  options<O extends object>(extra?: O): O & { maxTimeMS: number };
}

export function boundedCollection<T extends Document>(
  collection: Collection<T>,
  maxTimeMS: number,
): BoundedCollection<T> {
  return {
    collection,
    options: <O extends object>(extra?: O) => ({ ...(extra as O), maxTimeMS }),
  };
}
