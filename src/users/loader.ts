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
 * never asks for more than `MAX_BATCH` ids in one command. Invitee pages are batched the same way.
 */
import DataLoader from 'dataloader';
import { toUser, type User, type UsersCollection } from './model';
import { pagesOfInvitees, type InviteesRequest, type UserPage } from './pages';
import { usersByIds } from './reads';
import { parseUserId } from './validation';

const MAX_BATCH = 1_000;

/** Users by id (decimal strings as clients send them; a malformed one is simply null). */
export function createUserLoader(users: UsersCollection): DataLoader<string, User | null> {
  return new DataLoader<string, User | null>(
    async (keys) => {
      const ids = keys.map((key) => parseUserId(key));
      const found = await usersByIds(
        users,
        ids.filter((id): id is number => id !== null),
      );
      return ids.map((id) => {
        const doc = id === null ? undefined : found.get(id);
        return doc === undefined ? null : toUser(doc);
      });
    },
    { maxBatchSize: MAX_BATCH },
  );
}

/**
 * Pages of invitees (`User.invitees`): the loads of one tick that share page arguments are read
 * together (pages.ts: one `find` for all their inviters), in key order.
 */
export function createInviteesLoader(
  users: UsersCollection,
): DataLoader<InviteesRequest, UserPage, string> {
  return new DataLoader<InviteesRequest, UserPage, string>(
    async (requests) => {
      const groups = new Map<string, number[]>();
      requests.forEach(({ inviterId: _, ...args }, index) => {
        const key = JSON.stringify(args);
        groups.set(key, [...(groups.get(key) ?? []), index]);
      });
      const pages: Array<UserPage | Error> = new Array(requests.length);
      await Promise.all(
        [...groups.values()].map(async (indexes) => {
          const { inviterId: _, ...args } = requests[indexes[0]];
          try {
            const found = await pagesOfInvitees(
              users,
              args,
              indexes.map((index) => requests[index].inviterId),
            );
            indexes.forEach((index, k) => {
              pages[index] = found[k];
            });
          } catch (err) {
            for (const index of indexes) pages[index] = err as Error;
          }
        }),
      );
      return pages;
    },
    {
      maxBatchSize: MAX_BATCH,
      cacheKeyFn: (request) => JSON.stringify(request),
    },
  );
}
