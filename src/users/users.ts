/**
 * `Users`: the one owner of the `users` collection (see docs/ARCHITECTURE.md for the interface).
 *
 * Invariants: every write uses the configured write concern (WRITE_CONCERN), so an acknowledged
 * user survives a failover; every command carries maxTimeMS (DB_TIMEOUT_MS) through
 * `boundedCollection`; documents are read with `promoteLongs: false`, so ids stay `Long` end to
 * end. Defaults live where each setting is declared (src/config.ts, each strategy's folder):
 * every setting here is required. The id sources (src/strategies) live here, one per strategy per
 * `Users` (one per process), so all requests of a process share BLOCK's block and its single
 * in-flight refill.
 */
import { Long } from 'bson';
import type DataLoader from 'dataloader';
import type { Db, WriteConcernSettings } from 'mongodb';
import {
  beforeWrite,
  boundedCollection,
  isDuplicateKeyError,
  type ChangeFeed,
  type WriteOptions,
} from '../database/index';
import { BadUserInputError, type DomainError } from '../errors';
import { BATCH_USERS_IN_CREATION, USERS_PER_BATCH } from '../limits';
import { type HeldValues, type ReservedSequence, type Sequences } from '../sequences/index';
import type { StrategyStats } from '../stats/index';
import {
  idSources,
  UserIdTurns,
  USER_ID_SEQUENCE,
  type IdSource,
  type IdStrategy,
  type StrategySettings,
} from '../strategies/index';
import { BatchAdmission } from './batch-admission';
import { watchCreatedUsers } from './changes';
import {
  createUsersWith,
  createUserWith,
  type CreationDeps,
  type CreationOptions,
} from './creation';
import { numberings } from './fresh-ids';
import { importUsers, type ImportUserInput } from './import';
import { UserIndexes } from './indexes';
import { DuplicateEmailError, UniqueIndexesUnavailableError, UserNotFoundError } from './errors';
import { createInviteesLoader, createUserLoader } from './loader';
import {
  READABLE_USER,
  toUser,
  USERS_COLLECTION,
  type CreateUserInput,
  type User,
  type UserDocument,
  type UsersCollection,
} from './model';
import { pageOfUsers, type InviteesRequest, type UserPage, type UserPageRequest } from './pages';
import { findUserById, maxUserId, missingIds } from './reads';
import { normalizeEmail, parseUserId, validateUserUpdate } from './validation';

export interface UsersDeps {
  db: Db;
  sequences: Sequences;
  stats: StrategyStats<IdStrategy>;
  /** Each strategy's own settings, handed to its id source unread. */
  strategySettings: StrategySettings;
  writeConcern: WriteConcernSettings;
  /** Server-side time limit of each command (DB_TIMEOUT_MS). */
  maxTimeMS: number;
}

export class Users {
  private readonly collection: UsersCollection;
  private readonly creation: CreationDeps;
  private readonly sources: Record<IdStrategy, IdSource>;
  private readonly indexes: UserIndexes;
  private readonly batchAdmission = new BatchAdmission(BATCH_USERS_IN_CREATION);
  private readonly sequences: Sequences;
  /** The `userid` counter, which only this component allocates from (see SequenceCatalog). */
  readonly idSequence: ReservedSequence = {
    name: USER_ID_SEQUENCE.name,
    feeds: 'user ids',
    largestStored: () => this.maxId(),
    gaps: (request) => missingIds(this.collection, request),
  };

  constructor(deps: UsersDeps) {
    this.collection = boundedCollection(
      deps.db.collection<UserDocument>(USERS_COLLECTION, {
        writeConcern: deps.writeConcern,
        promoteLongs: false,
      }),
      deps.maxTimeMS,
    );
    const turns = new UserIdTurns();
    const sources = idSources(
      {
        sequences: deps.sequences,
        client: deps.db.client,
        turns,
        maxTimeMS: deps.maxTimeMS,
        maxId: (tally) => maxUserId(this.collection, tally),
        onBlockIdsDropped: (count, reason) => deps.stats.recordBlockIdsDropped(count, reason),
      },
      deps.strategySettings,
    );
    this.indexes = new UserIndexes(this.collection);
    this.sources = sources;
    this.sequences = deps.sequences;
    this.creation = {
      users: this.collection,
      stats: deps.stats,
      numbering: numberings(this.collection, sources, turns),
      indexes: this.indexes,
    };
  }

  /** Creates the unique indexes (at start-up; they are re-created by themselves when lost). */
  ensureIndexes(): Promise<void> {
    return this.indexes.create();
  }

  /**
   * For `/ready`: true when the unique indexes are in place; when they are missing, starts their
   * rebuild and answers false until it has finished (one `listIndexes`, shared: indexes.ts).
   */
  indexesReady(): Promise<boolean> {
    return this.indexes.ready();
  }

  /** Throws the item's `DomainError` (BAD_USER_INPUT, EMAIL_TAKEN, ID_CONTENTION, ...) when it is not created. */
  async createUser(
    input: CreateUserInput,
    strategy: IdStrategy,
    options?: CreationOptions,
  ): Promise<{ user: User; attempts: number; replayed: boolean }> {
    const outcome = await createUserWith(this.creation, input, strategy, options);
    if ('error' in outcome) throw outcome.error;
    return { ...outcome, user: readable(outcome.user) };
  }

  /**
   * At most `USERS_PER_BATCH` inputs; one result per input, in input order, and the created
   * ones get their ids in input order too (one allocation for the batch, ids given in order).
   * `replayed` is true for a user created earlier under the item's idempotency key (by an earlier
   * request or an earlier item of this batch), as for `createUser`.
   */
  async createUsers(
    inputs: CreateUserInput[],
    strategy: IdStrategy,
    options?: CreationOptions,
  ): Promise<Array<{ user: User; replayed: boolean } | { error: DomainError }>> {
    if (inputs.length > USERS_PER_BATCH) {
      throw new BadUserInputError(`At most ${USERS_PER_BATCH} users can be created at once.`, {
        field: 'inputs',
      });
    }
    const outcomes = await this.batchAdmission.run(inputs.length, options, () =>
      createUsersWith(this.creation, inputs, strategy, options),
    );
    return outcomes.map((outcome) =>
      'error' in outcome ? outcome : { user: readable(outcome.user), replayed: outcome.replayed },
    );
  }

  /**
   * Stores users with the ids another system gave them (./import.ts): at most `USERS_PER_BATCH`
   * inputs, one outcome per input, in input order; the `userid` counter moves forward past them.
   */
  async importUsers(
    inputs: ImportUserInput[],
    options?: WriteOptions,
  ): Promise<Array<{ user: User; replayed: boolean } | { error: DomainError }>> {
    if (inputs.length > USERS_PER_BATCH) {
      throw new BadUserInputError(`At most ${USERS_PER_BATCH} users can be imported at once.`, {
        field: 'inputs',
      });
    }
    return this.batchAdmission.run(inputs.length, options, () =>
      importUsers(this.collection, this.sequences, inputs, options),
    );
  }

  /** The user with this id (a decimal string); null when there is none or it is not an id. */
  async findById(id: string): Promise<User | null> {
    const doc = await findUserById(this.collection, id);
    return doc === null ? null : toUser(doc);
  }

  /** The user with this email (compared as stored: NFC, trimmed, lower-cased); null when none. */
  async findByEmail(email: string): Promise<User | null> {
    const normalized = normalizeEmail(email);
    if (normalized === null) return null;
    const doc = await this.collection.collection.findOne(
      { ...READABLE_USER, email: normalized },
      this.collection.options(),
    );
    return doc === null ? null : toUser(doc);
  }

  /** A page of users (see pages.ts); BAD_USER_INPUT names a bad size, cursor or filter. */
  page(request: UserPageRequest): Promise<UserPage> {
    return pageOfUsers(this.collection, request);
  }

  /**
   * Changes the name and/or email of a user, with the rules of creation (EMAIL_TAKEN when another
   * user has the email; `email: null` removes it); answers the changed user, USER_NOT_FOUND when
   * there is none. A new email is acknowledged only once its unique index is seen (indexes.ts).
   */
  async updateUser(
    id: string,
    input: { name?: string | null; email?: string | null },
    options?: WriteOptions,
  ): Promise<User> {
    const userId = parseUserId(id);
    const changes = validateUserUpdate(input);
    if (userId === null) throw new UserNotFoundError();
    const $set: Partial<UserDocument> = {};
    if (changes.name !== undefined) $set.name = changes.name;
    if (typeof changes.email === 'string') $set.email = changes.email;
    const update = {
      ...(Object.keys($set).length === 0 ? {} : { $set }),
      ...(changes.email === null ? { $unset: { email: '' as const } } : {}),
    };
    const filter = { ...READABLE_USER, _id: Long.fromNumber(userId) };
    beforeWrite(options);
    let updated: UserDocument | null;
    try {
      updated =
        Object.keys(update).length === 0
          ? await this.collection.collection.findOne(filter, this.collection.options())
          : await this.collection.collection.findOneAndUpdate(
              filter,
              update,
              this.collection.options({ returnDocument: 'after' as const }),
            );
    } catch (err) {
      if (isDuplicateKeyError(err, 'email')) throw new DuplicateEmailError();
      throw err;
    }
    if (updated === null) throw new UserNotFoundError();
    if (typeof changes.email === 'string' && !(await this.indexes.presentOrHealed())) {
      throw new UniqueIndexesUnavailableError();
    }
    return readable(updated);
  }

  /**
   * Deletes a user and answers it; USER_NOT_FOUND when there is none. Its id is never issued again
   * by COUNTER or BLOCK (the counter only moves forward); OPTIMISTIC_LOOP takes max + 1, so it
   * issues the id of a deleted newest user again. Users it invited keep `invitedById`.
   */
  async deleteUser(id: string, options?: WriteOptions): Promise<User> {
    const userId = parseUserId(id);
    if (userId === null) throw new UserNotFoundError();
    beforeWrite(options);
    const deleted = await this.collection.collection.findOneAndDelete(
      { ...READABLE_USER, _id: Long.fromNumber(userId) },
      this.collection.options({ includeResultMetadata: false as const }),
    );
    if (deleted === null) throw new UserNotFoundError();
    return readable(deleted);
  }

  /** Users as they are created by any instance, the filter's only (changes.ts); after a cursor. */
  watchCreated(filter: UserPageRequest['filter'], after: string | null): Promise<ChangeFeed<User>> {
    return watchCreatedUsers(this.collection, filter, after);
  }

  /** The largest stored `_id`, 0 when there is none. */
  maxId(): Promise<number> {
    return maxUserId(this.collection);
  }

  /**
   * For a clean shutdown, once no request runs: gives the ids this process holds (BLOCK's block)
   * back to the `userid` counter where that is safe, and tells how many stay unused (gaps).
   */
  async releaseHeldIds(): Promise<HeldValues> {
    const held = { givenBack: 0, leftUnused: 0 };
    for (const source of Object.values(this.sources)) {
      const released = await source.release?.();
      held.givenBack += released?.givenBack ?? 0;
      held.leftUnused += released?.leftUnused ?? 0;
    }
    return held;
  }

  /** A fresh loader of users by id for one request; never keep it beyond that request (loader.ts). */
  createLoader(): DataLoader<string, User | null> {
    return createUserLoader(this.collection);
  }

  /** A fresh loader of invitee pages for one request (`User.invitees`), batched per page arguments. */
  createInviteesLoader(): DataLoader<InviteesRequest, UserPage> {
    return createInviteesLoader(this.collection);
  }
}

/** A user this component wrote or just read under its own filters: always readable. */
function readable(doc: UserDocument): User {
  const user = toUser(doc);
  if (user === null) throw new Error(`stored user ${String(doc._id)} cannot be read as a user`);
  return user;
}
