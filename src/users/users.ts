/**
 * `Users`: the one owner of the `users` collection (see docs/ARCHITECTURE.md for the interface).
 *
 * Invariants: every write uses the configured write concern (`majority` unless told otherwise), so
 * an acknowledged user survives a failover; documents are read with `promoteLongs: false`, so ids
 * stay `Long` end to end. The BLOCK allocator lives here, one per `Users` (one per process), so all
 * requests of a process share its block and its single in-flight refill.
 */
import type DataLoader from 'dataloader';
import type { Collection, Db, WriteConcernSettings } from 'mongodb';
import type { WriteOptions } from '../database/index.js';
import { BadUserInputError, type DomainError } from '../errors.js';
import { BlockAllocator, type ReservedSequence, type Sequences } from '../sequences/index.js';
import type { IdStrategy, StrategyStats } from '../stats/index.js';
import { createUsersWith, type CreationDeps } from './creation.js';
import { idSources, USER_ID_SEQUENCE } from './id-sources.js';
import { UserIndexes } from './indexes.js';
import { createUserLoader } from './loader.js';
import { USERS_COLLECTION, type CreateUserInput, type UserDocument } from './model.js';
import { findUserById, maxUserId, pageOfUsers } from './reads.js';

export const MAX_USERS_PER_BATCH = 1_000;
const DEFAULT_OPTIMISTIC_MAX_ATTEMPTS = 10;

export interface UsersDeps {
  db: Db;
  sequences: Sequences;
  stats: StrategyStats;
  blockSize: number;
  writeConcern?: WriteConcernSettings;
  optimisticMaxAttempts?: number;
  /** Server-side time limit of each command (DB_TIMEOUT_MS). */
  maxTimeMS?: number;
}

export class Users {
  private readonly collection: Collection<UserDocument>;
  private readonly creation: CreationDeps;
  private readonly indexes: UserIndexes;
  /** The `userid` counter, which only this component allocates from (see SequenceCatalog). */
  readonly idSequence: ReservedSequence = {
    name: USER_ID_SEQUENCE.name,
    feeds: 'user ids',
    largestStored: () => this.maxId(),
  };

  constructor(deps: UsersDeps) {
    this.collection = deps.db.collection<UserDocument>(USERS_COLLECTION, {
      writeConcern: deps.writeConcern ?? { w: 'majority' },
      promoteLongs: false,
    });
    const sources = idSources({
      sequences: deps.sequences,
      blocks: new BlockAllocator(deps.sequences, USER_ID_SEQUENCE, deps.blockSize),
      maxId: (cost) => maxUserId(this.collection, cost),
      optimisticMaxAttempts: deps.optimisticMaxAttempts ?? DEFAULT_OPTIMISTIC_MAX_ATTEMPTS,
    });
    this.indexes = new UserIndexes(this.collection, deps.maxTimeMS);
    this.creation = { users: this.collection, stats: deps.stats, sources, indexes: this.indexes };
  }

  /** Creates the unique indexes (at start-up; they are re-created by themselves when lost). */
  ensureIndexes(): Promise<void> {
    return this.indexes.create();
  }

  /**
   * For `/ready`: true when the unique indexes are in place; when they are missing, starts their
   * rebuild and answers false until it has finished (one `listIndexes`).
   */
  indexesReady(): Promise<boolean> {
    return this.indexes.ready();
  }

  /** Throws the item's `DomainError` (BAD_USER_INPUT, ID_CONTENTION, ...) when it is not created. */
  async createUser(
    input: CreateUserInput,
    strategy: IdStrategy,
    options?: WriteOptions,
  ): Promise<{ user: UserDocument; attempts: number; replayed: boolean }> {
    const [outcome] = await createUsersWith(this.creation, [input], strategy, options);
    if ('error' in outcome) throw outcome.error;
    return outcome;
  }

  /** At most `MAX_USERS_PER_BATCH` inputs; one result per input, in input order. */
  async createUsers(
    inputs: CreateUserInput[],
    strategy: IdStrategy,
    options?: WriteOptions,
  ): Promise<Array<{ user: UserDocument } | { error: DomainError }>> {
    if (inputs.length > MAX_USERS_PER_BATCH) {
      throw new BadUserInputError(`At most ${MAX_USERS_PER_BATCH} users can be created at once.`, {
        field: 'inputs',
      });
    }
    const outcomes = await createUsersWith(this.creation, inputs, strategy, options);
    return outcomes.map((outcome) => ('error' in outcome ? outcome : { user: outcome.user }));
  }

  findById(id: string): Promise<UserDocument | null> {
    return findUserById(this.collection, id);
  }

  /** `first` is validated here (1 to 100, else BAD_USER_INPUT on `first`), as is the `after` cursor. */
  page(
    first: number,
    after?: string | null,
  ): Promise<{ users: UserDocument[]; hasNextPage: boolean }> {
    return pageOfUsers(this.collection, first, after);
  }

  /** The largest stored `_id`, 0 when there is none. */
  maxId(): Promise<number> {
    return maxUserId(this.collection);
  }

  /** A fresh loader for one request; never keep it beyond that request (see loader.ts). */
  createLoader(): DataLoader<number, UserDocument | null> {
    return createUserLoader(this.collection);
  }
}
