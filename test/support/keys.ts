/**
 * Stored idempotency keys as their callers sent them. The service stores a key with its owner
 * after a U+001F (`<key>\u001f<owner>`, src/users/key-owners.ts); tests that read the `users`
 * collection compare keys as sent.
 */
const OWNER_SEPARATOR = '\u001f';

/** The key as its caller sent it. */
export function keyAsSent(stored: string): string {
  const end = stored.indexOf(OWNER_SEPARATOR);
  return end < 0 ? stored : stored.slice(0, end);
}

/** A filter on `idempotencyKey` matching `key` as sent, whoever owns it. */
export function sentKeyFilter(key: string): { $regex: string } {
  return { $regex: `^${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(${OWNER_SEPARATOR}|$)` };
}
