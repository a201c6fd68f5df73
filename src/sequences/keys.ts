/**
 * Naming sequences: validation of names and scopes, and the counter document `_id` of a key.
 *
 * Invariants: a name and a scope both match `^[A-Za-z][A-Za-z0-9_.-]{0,63}$`, so neither contains
 * `/` and the `_id`s `"<name>"` (unscoped) and `"<name>/<scope>"` can never collide; nothing a
 * client sends reaches MongoDB as an operator or a dotted path.
 */
import { BadUserInputError } from './errors.js';

export type SequenceKey = { name: string; scope?: string | null };

/** A validated key: `scope` is null for the unscoped sequence of `name`. */
export interface ResolvedKey {
  id: string;
  name: string;
  scope: string | null;
}

const SEQUENCE_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** Throws BAD_USER_INPUT naming `field` unless `name` is a valid sequence name (or scope). */
export function validateSequenceName(name: string, field = 'name'): void {
  if (typeof name !== 'string' || !SEQUENCE_NAME.test(name)) {
    throw new BadUserInputError(
      `${field === 'scope' ? 'A scope' : 'A sequence name'} starts with a letter and has at most 64 letters, digits, "_", "." or "-".`,
      { field },
    );
  }
}

export function resolveKey(key: SequenceKey): ResolvedKey {
  validateSequenceName(key.name, 'name');
  const scope = key.scope ?? null;
  if (scope !== null) validateSequenceName(scope, 'scope');
  return { id: scope === null ? key.name : `${key.name}/${scope}`, name: key.name, scope };
}

/**
 * The key of a sequence `id` (`name` or `name/scope`, as `resolveKey` builds it); a malformed one
 * is BAD_USER_INPUT naming `field`.
 */
export function parseSequenceId(id: string, field: string): ResolvedKey {
  const [name, scope = null, ...rest] = id.split('/');
  if (
    rest.length === 0 &&
    SEQUENCE_NAME.test(name) &&
    (scope === null || SEQUENCE_NAME.test(scope))
  ) {
    return resolveKey({ name, scope });
  }
  throw new BadUserInputError(`${field} must be the id of a sequence, like "invoice/acme".`, {
    field,
  });
}

/** How a key is named in messages: `invoice` or `invoice (scope acme)`. */
export function describeKey(key: ResolvedKey): string {
  return key.scope === null ? `"${key.name}"` : `"${key.name}" (scope "${key.scope}")`;
}
