/**
 * Naming sequences: validation of names and scopes, the namespaces of owners, and the counter
 * document `_id` of a key.
 *
 * Namespaces (one tenant learns nothing about another): every client names its
 * sequences in a namespace of its own, so `invoice` of `billing` and `invoice` of `shipping` are
 * two counters, and creating a name answers the same whether or not another client uses it (0.3
 * shared one namespace, so a refusal told a client that the name was taken). The admin, version
 * 0.1's counters and the reserved `userid` live in the shared namespace (no owner).
 *
 * Invariants: a name, a scope and an owner (a client name, src/auth/tokens.ts) all match
 * `^[A-Za-z][A-Za-z0-9_.-]{0,63}$`, so none contains `/` or `~`, and the `_id`s `"<name>"`
 * (unscoped), `"<name>/<scope>"` and, in a client's namespace, `"<owner>~<name>"` and
 * `"<owner>~<name>/<scope>"` can never collide; nothing a client sends reaches MongoDB as an
 * operator or a dotted path.
 */
import { BadUserInputError } from './errors';

/** `owner`: the client whose namespace holds the sequence; null or absent: the shared one. */
export type SequenceKey = { name: string; scope?: string | null; owner?: string | null };

/** A validated key: `scope` is null for the unscoped sequence of `name`, `owner` for the shared namespace. */
export interface ResolvedKey {
  id: string;
  name: string;
  scope: string | null;
  owner: string | null;
}

const SEQUENCE_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
/** Between an owner and its sequence in an `_id` (a character no name holds). */
export const OWNER_MARK = '~';

const NAMED = { name: 'A sequence name', scope: 'A scope', owner: 'An owner (a client name)' };

/** Throws BAD_USER_INPUT naming `field` unless `name` is a valid sequence name (or scope, owner). */
export function validateSequenceName(name: string, field = 'name'): void {
  if (typeof name !== 'string' || !SEQUENCE_NAME.test(name)) {
    const what = NAMED[field as keyof typeof NAMED] ?? NAMED.name;
    throw new BadUserInputError(
      `${what} starts with a letter and has at most 64 letters, digits, "_", "." or "-".`,
      { field },
    );
  }
}

export function resolveKey(key: SequenceKey): ResolvedKey {
  validateSequenceName(key.name, 'name');
  const scope = key.scope ?? null;
  if (scope !== null) validateSequenceName(scope, 'scope');
  const owner = key.owner ?? null;
  if (owner !== null) validateSequenceName(owner, 'owner');
  const local = scope === null ? key.name : `${key.name}/${scope}`;
  return {
    id: owner === null ? local : `${owner}${OWNER_MARK}${local}`,
    name: key.name,
    scope,
    owner,
  };
}

/**
 * The key of a sequence `id` (`name`, `name/scope`, each after `owner~` in a client's namespace,
 * as `resolveKey` builds it); a malformed one is BAD_USER_INPUT naming `field`.
 */
export function parseSequenceId(id: string, field: string): ResolvedKey {
  const mark = id.indexOf(OWNER_MARK);
  const owner = mark < 0 ? null : id.slice(0, mark);
  const [name, scope = null, ...rest] = id.slice(mark + 1).split('/');
  if (
    rest.length === 0 &&
    SEQUENCE_NAME.test(name) &&
    (scope === null || SEQUENCE_NAME.test(scope)) &&
    (owner === null || SEQUENCE_NAME.test(owner))
  ) {
    return resolveKey({ name, scope, owner });
  }
  throw malformedSequenceId(field);
}

/** The refusal of a malformed sequence id, naming `field`. */
export function malformedSequenceId(field: string): BadUserInputError {
  return new BadUserInputError(`${field} must be the id of a sequence, like "invoice/acme".`, {
    field,
  });
}

/** How a key is named in messages: `invoice` or `invoice (scope acme)`. */
export function describeKey(key: ResolvedKey): string {
  return key.scope === null ? `"${key.name}"` : `"${key.name}" (scope "${key.scope}")`;
}
