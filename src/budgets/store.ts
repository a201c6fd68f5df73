/**
 * The `budgets` collection, where rate-limiter-flexible's MongoDB limiter keeps what every caller
 * spent in the current window (one document per budget, kind of caller and caller: `key`,
 * `points`, `expire`), so every instance on the database draws on the same budgets.
 *
 * Invariants: every command the limiter sends is bounded by `maxTimeMS` (the limiter sets none of
 * its own); `key` is unique, which the limiter relies on when two instances open a window at once
 * (the loser's upsert fails with a duplicate key and is retried as an update). Expired windows are
 * deleted by a TTL index on `expire` (MongoDB's TTL monitor, and the stand-in's, pass every
 * minute), so what is kept is the windows of callers counted lately.
 */
import type {
  Collection,
  Db,
  Document,
  Filter,
  FindOneAndUpdateOptions,
  UpdateFilter,
} from 'mongodb';

export const BUDGETS_COLLECTION = 'budgets';

/** What rate-limiter-flexible's `RateLimiterMongo` calls on its collection, each bounded in time. */
function boundedCommands(collection: Collection, maxTimeMS: number) {
  return {
    findOneAndUpdate: (
      filter: Filter<Document>,
      update: UpdateFilter<Document>,
      options: FindOneAndUpdateOptions,
    ) => collection.findOneAndUpdate(filter, update, { ...options, maxTimeMS }),
    findOne: (filter: Filter<Document>) => collection.findOne(filter, { maxTimeMS }),
    deleteOne: (filter: Filter<Document>) => collection.deleteOne(filter, { maxTimeMS }),
  };
}

/** The `storeClient` the limiter is given: a database whose one collection is bounded. */
export function budgetStore(db: Db, maxTimeMS: number) {
  const commands = boundedCommands(db.collection(BUDGETS_COLLECTION), maxTimeMS);
  return { collection: () => commands };
}

/** The unique `key` index and the TTL index on `expire` (see the header). */
export async function ensureBudgetIndexes(db: Db): Promise<void> {
  const collection = db.collection(BUDGETS_COLLECTION);
  await collection.createIndex({ key: 1 }, { unique: true });
  await collection.createIndex({ expire: -1 }, { expireAfterSeconds: 0 });
}
