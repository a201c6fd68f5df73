/**
 * The DataLoader that resolves users by id (e.g. `User.invitedBy`) within one GraphQL request.
 *
 * Why per request: its cache lives exactly as long as the request, so a user created or changed by
 * one request is never answered from another request's stale copy, memory never grows with
 * traffic, and what one client fetched is never handed to another. Why per tick: DataLoader
 * collects every `load` issued in the same tick of the event loop, which is when GraphQL resolves
 * one level of a result, so a page of 100 users with `invitedBy` costs one `find` with `$in` for
 * all inviters instead of 100.
 *
 * Invariants: results come in key order, a missing user is `null` (not an error), and a batch
 * never asks for more than `MAX_BATCH` ids in one command.
 */
import DataLoader from 'dataloader';
import type { Collection } from 'mongodb';
import type { UserDocument } from './model.js';
import { usersByIds } from './reads.js';

const MAX_BATCH = 1_000;

export function createUserLoader(
  users: Collection<UserDocument>,
): DataLoader<number, UserDocument | null> {
  return new DataLoader<number, UserDocument | null>(
    async (ids) => {
      const found = await usersByIds(users, ids);
      return ids.map((id) => found.get(id) ?? null);
    },
    { maxBatchSize: MAX_BATCH },
  );
}
