/**
 * The unique indexes the `users` collection relies on, created at start-up.
 *
 * Invariants: both are partial on `$type: 'string'`, so users without an email (or created without
 * an idempotency key) never collide with each other, while two users can never share an email and
 * two requests can never both create a user under one key, whatever the interleaving. The unique
 * index on `_id` needs no creation: it is what turns a taken id into a duplicate-key error that the
 * strategies retry.
 */
import type { Collection } from 'mongodb';
import type { UserDocument } from './model.js';

export async function ensureUserIndexes(users: Collection<UserDocument>): Promise<void> {
  await users.createIndexes([
    { key: { email: 1 }, unique: true, partialFilterExpression: { email: { $type: 'string' } } },
    {
      key: { idempotencyKey: 1 },
      unique: true,
      partialFilterExpression: { idempotencyKey: { $type: 'string' } },
    },
  ]);
}
