/**
 * Users as they are created, from a MongoDB change stream on the `users` collection: every
 * instance's inserts, for `userCreated` subscribers.
 *
 * Contract: a feed yields each inserted user the filter admits (the same filter, and the same
 * validation, as a users page: `createdWith`, `invitedById`), read from the insert event itself,
 * so a user deleted a moment later is still announced once. Documents this service cannot read as
 * users (written by someone else) are left out. After a cursor, the feed replays what was missed.
 */
import { type ChangeFeed, openChangeFeed } from '../database/index';
import { toUser, type User, type UserDocument, type UsersCollection } from './model';
import { type UserPageRequest, userFilter } from './pages';

/** How long one server-side wait for the next insert lasts before the driver asks again. */
const AWAIT_MS = 1_000;

export function watchCreatedUsers(
  users: UsersCollection,
  filter: UserPageRequest['filter'],
  after: string | null,
): Promise<ChangeFeed<User>> {
  const match = Object.fromEntries(
    Object.entries(userFilter(filter)).map(([field, condition]) => [
      `fullDocument.${field}`,
      condition,
    ]),
  );
  return openChangeFeed(
    users.collection,
    [{ $match: { operationType: 'insert', ...match } }],
    { after, afterField: 'after', maxAwaitTimeMS: AWAIT_MS, maxTimeMS: users.options().maxTimeMS },
    (change) =>
      change.operationType === 'insert' ? toUser(change.fullDocument as UserDocument) : null,
  );
}
