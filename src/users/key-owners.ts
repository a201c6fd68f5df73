/**
 * Idempotency keys belong to their caller: a key replays only the user its own caller created with
 * it. Another caller's key is a fresh key for you, and nothing of it leaks (its existence, its
 * user's id, its input): in 0.3 a production caller without a token who sent the key and input a
 * client had used got `replayed: true` with that client's user, and other input answered
 * IDEMPOTENCY_KEY_REUSED, which confirmed the key existed.
 *
 * How: the key is stored with its owner after it, `<key>\u001f<owner>`. Keys refuse control
 * characters (./validation.ts) and owners are made here, so no key of one owner equals a key of
 * another, and none equals a key stored by 0.3 (which has no owner part). The unique index on
 * `idempotencyKey` stays as it is.
 * - A named owner (the API passes `client:<name>` for a client and `admin` for the admin) replays
 *   its own keys; the same key with other input is IDEMPOTENCY_KEY_REUSED, as before.
 * - Callers without a token share no identity, so their owner part also holds the fingerprint of
 *   the input (`anonymous:<inputHash>`): a replay needs the exact key and the exact input (a retry
 *   of the same sign-up), and the same key with other input is a fresh key rather than a refusal
 *   that would confirm someone else's key. They can never reach a named owner's key.
 * - No owner (in-process callers: scripts, tests) is the unscoped namespace, where 0.3's keys are:
 *   the API never uses it.
 */

/** Whose idempotency keys these are: a named caller, or a caller without a token. */
export type KeyOwner = { name: string } | 'anonymous';

const SEPARATOR = '\u001f';

/** The key as stored for `owner`; `hash` is the input's fingerprint (./validation.ts `inputHash`). */
export function ownedKey(key: string, owner: KeyOwner | undefined, hash: () => string): string {
  if (owner === undefined) return key;
  const part = owner === 'anonymous' ? `anonymous:${hash()}` : owner.name;
  return `${key}${SEPARATOR}${part}`;
}
