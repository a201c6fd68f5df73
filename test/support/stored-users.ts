/**
 * What a test reads back from the `users` collection to check the ids a run left: every stored
 * `_id`, ascending, bounded in time like every read of the suites.
 */
import type { Db } from 'mongodb';

const READ_TIMEOUT_MS = 20_000;

/** Every stored user's `_id`, ascending. */
export async function storedIds(db: Db): Promise<number[]> {
  const docs = await db
    .collection('users')
    .find({}, { projection: { _id: 1 }, sort: { _id: 1 } })
    .maxTimeMS(READ_TIMEOUT_MS)
    .toArray();
  return docs.map((doc) => Number(doc._id));
}

/** How many ids below the largest stored one no user holds. */
export async function holesIn(db: Db): Promise<number> {
  const ids = await storedIds(db);
  return (ids.at(-1) ?? 0) - ids.length;
}
