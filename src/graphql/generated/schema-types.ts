export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /**
   * An instant in time, sent as an RFC 3339 / ISO-8601 string in UTC with milliseconds, e.g.
   * `2026-11-30T12:00:00.000Z`.
   */
  DateTime: { input: Date; output: Date; }
  /**
   * A sequence value: an integer sent as a JSON number. Stored in MongoDB as Int64 (NumberLong). The
   * service never issues or accepts a value beyond ±(2^53 - 1) = ±9007199254740991, the integers every
   * JSON client holds exactly (RFC 8259, section 6); input may also be a string of decimal digits.
   */
  Long: { input: number; output: number; }
};

/** The answer of `allocateSequence`. */
export type AllocateSequencePayload = {
  __typename?: 'AllocateSequencePayload';
  /** Why nothing was consumed, or null. */
  error?: Maybe<MutationError>;
  /** The whole query root, to read any list afresh in the same response. */
  query: Query;
  /**
   * The values consumed; null when `error` is set, and for a gapless sequence whose values held are
   * not `first`, `first + step`, ... of one period (released values handed out again among new
   * ones): `reservations` lists them.
   */
  range?: Maybe<SequenceRange>;
  /**
   * For a gapless sequence: the first value held for the caller (with `count` 1 the only one), to
   * confirm or release; null otherwise.
   */
  reservation?: Maybe<SequenceReservation>;
  /**
   * For a gapless sequence: every value held for the caller, one reservation each, lowest period and
   * value first; empty for any other sequence and when `error` is set.
   */
  reservations: Array<SequenceReservation>;
  /** The sequence after the allocation, for client caches; null when `error` is set. */
  sequence?: Maybe<Sequence>;
};

/**
 * One budget of the caller: `limit` units per window of `windowSeconds`, shared by every instance.
 * A window opens at the first unit spent and ends `windowSeconds` later.
 */
export type CallerBudget = {
  __typename?: 'CallerBudget';
  /** Units per window; null when this caller's budget is unlimited. */
  limit?: Maybe<Scalars['Long']['output']>;
  /**
   * The budget, as `extensions.budget` of a `RATE_LIMITED` error and the `budget` label of
   * `sequential_ids_budget_refusals_total` name it: `usersCreated`, `sequenceValues`, `gaplessHeld`,
   * `subscriptionConnections`, `subscriptions` or `gapsScans`.
   */
  name: Scalars['String']['output'];
  /**
   * Units left in the current window; null when unlimited. Units another instance took ahead and has
   * not spent yet count as spent (at most a twentieth of the budget per instance).
   */
  remaining?: Maybe<Scalars['Long']['output']>;
  /**
   * Seconds until the current window ends and the budget is whole again; null when no window is
   * open (nothing spent) or unlimited.
   */
  resetsInSeconds?: Maybe<Scalars['Int']['output']>;
  /** What one unit is. */
  unit: Scalars['String']['output'];
  /** The window's length in seconds; null when unlimited. */
  windowSeconds?: Maybe<Scalars['Int']['output']>;
};

/** A new sequence. */
export type CreateSequenceInput = {
  /**
   * How values are written for people, answered beside each number: text with the value once, as
   * `{seq}` or `{seq:N}` (zero-padded to N digits, 1 to 16), and the date parts of the period it was
   * issued in, `{YYYY}`, `{YY}` (any period), `{MM}` (MONTHLY, DAILY), `{DD}` (DAILY); at most 64
   * characters, no other braces. A padded value never overflows: `max` defaults to the largest value
   * the width holds (999999 for `{seq:6}`), and a larger `max` or a negative `start` is refused.
   * Example: `INV-{YYYY}-{seq:6}` writes `INV-2026-000042`.
   */
  format?: InputMaybe<Scalars['String']['input']>;
  /**
   * Every value must be confirmed (`confirmReservation`) or released; unconfirmed values are handed
   * out again before new ones, so the confirmed values form start, start + step, ... with no hole.
   * Values are then not issued in time order. Default false.
   */
  gapless?: InputMaybe<Scalars['Boolean']['input']>;
  /**
   * For a gapless sequence: how long each allocated value is held for its confirmation, 1 to 3,600
   * seconds. Default 60.
   */
  holdSeconds?: InputMaybe<Scalars['Int']['input']>;
  /** Allocation beyond this fails with `SEQUENCE_EXHAUSTED`, and nothing is consumed. */
  max?: InputMaybe<Scalars['Long']['input']>;
  /** Starts with a letter; letters, digits, `_`, `.`, `-`; at most 64 characters. */
  name: Scalars['String']['input'];
  /**
   * Restart at `start` every day, month or year of `timeZone`, as the database's clock tells at each
   * allocation (the same for every service instance). A gapless sequence hands out a released or
   * expired value again in its own period, also after that period ended, so no period keeps a hole.
   */
  period?: InputMaybe<SequencePeriod>;
  /** An independent counter under the same name (per tenant, per year); same syntax as `name`. */
  scope?: InputMaybe<Scalars['String']['input']>;
  /** The first value issued. Default 1. */
  start?: InputMaybe<Scalars['Long']['input']>;
  /** Added for each value; never 0. Interleave N servers with `start = k, step = N`. Default 1. */
  step?: InputMaybe<Scalars['Int']['input']>;
  /**
   * The IANA time zone of `period` (`Europe/Berlin`): when its days, months and years begin.
   * Default `UTC`; only with `period`.
   */
  timeZone?: InputMaybe<Scalars['String']['input']>;
};

/** The answer of `createSequence`. */
export type CreateSequencePayload = {
  __typename?: 'CreateSequencePayload';
  /** Why it was not created (a conflicting definition, a reserved name), or null. */
  error?: Maybe<MutationError>;
  /** The whole query root, to read any list afresh in the same response. */
  query: Query;
  /** The sequence as defined; null when `error` is set. */
  sequence?: Maybe<Sequence>;
  /**
   * The sequence as an edge of a sequences list, for inserting it into a cached list; null when
   * `error` is set.
   */
  sequenceEdge?: Maybe<SequenceEdge>;
};

/** A new user. */
export type CreateUserInput = {
  /** Optional; unique among users when given. */
  email?: InputMaybe<Scalars['String']['input']>;
  /**
   * Optional, 1 to 128 characters. Retrying with the same key returns the first result and never
   * creates a second user; the same key with different input is refused.
   */
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
  /** The id of an existing user. */
  invitedById?: InputMaybe<Scalars['ID']['input']>;
  /**
   * 1 to 100 characters after trimming, with a visible character; no control, format or bidi
   * override characters.
   */
  name: Scalars['String']['input'];
};

/** The answer of `createUser`: the user and its edge, or `error`. */
export type CreateUserPayload = {
  __typename?: 'CreateUserPayload';
  /**
   * Insert attempts this request made, including duplicate-key retries (0 for an idempotent replay);
   * null when `error` is set.
   */
  attempts?: Maybe<Scalars['Int']['output']>;
  /** Why no user was created, or null. */
  error?: Maybe<MutationError>;
  /**
   * The user given as `invitedById`, whose `invitees` gained `userEdge`; null when there is none,
   * `error` is set, or the caller may not read other users.
   */
  inviter?: Maybe<User>;
  /** The whole query root, to read any list afresh in the same response. */
  query: Query;
  /**
   * True when `idempotencyKey` matched an earlier request and its user was returned; null when
   * `error` is set.
   */
  replayed?: Maybe<Scalars['Boolean']['output']>;
  /** The strategy asked for. */
  strategy: IdStrategy;
  /** The user created (or replayed); null when `error` is set. */
  user?: Maybe<User>;
  /** The user as an edge of a users list, with its cursor, for inserting it into a cached list. */
  userEdge?: Maybe<UserEdge>;
};

/** The answer of `createUsers`. */
export type CreateUsersPayload = {
  __typename?: 'CreateUsersPayload';
  /** How many results hold a user this request created (`replayed: false`). */
  created: Scalars['Int']['output'];
  /** Why the whole batch was refused (e.g. more than 1,000 inputs), or null. */
  error?: Maybe<MutationError>;
  /** How many results hold an error. */
  failed: Scalars['Int']['output'];
  /** The whole query root, to read any list afresh in the same response. */
  query: Query;
  /**
   * How many results hold a user created earlier, returned because its `idempotencyKey` was seen
   * before (`replayed: true`): by an earlier request, or by an earlier input of this batch.
   * `created + replayed + failed` is the number of results.
   */
  replayed: Scalars['Int']['output'];
  /** One per input, in input order (empty when `error` refused the whole batch). */
  results: Array<CreateUsersResult>;
  /** The strategy asked for. */
  strategy: IdStrategy;
};

/**
 * The outcome of one input of `createUsers` or `importUsers`: exactly one of `user` and `error` is
 * set.
 */
export type CreateUsersResult = {
  __typename?: 'CreateUsersResult';
  /** Why this input was not created, or null. */
  error?: Maybe<MutationError>;
  /** The position of the input this result belongs to. */
  index: Scalars['Int']['output'];
  /**
   * True when `idempotencyKey` matched an earlier request (or an earlier input of this batch) and
   * its user was returned instead of creating one; false when this request created the user; null
   * when `error` is set. As `CreateUserPayload.replayed`.
   */
  replayed?: Maybe<Scalars['Boolean']['output']>;
  /** The user created (or replayed); null when `error` is set. */
  user?: Maybe<User>;
  /** The user as an edge of a users list, with its cursor; null when `error` is set. */
  userEdge?: Maybe<UserEdge>;
};

/** The answer of `deleteUser`. */
export type DeleteUserPayload = {
  __typename?: 'DeleteUserPayload';
  /**
   * The id of the deleted user: remove the edges whose `node` has it from cached lists (Relay's
   * `@deleteEdge(connections:)`; `@deleteRecord` alone leaves a null edge in a `@connection`); null
   * when `error` is set.
   */
  deletedUserId?: Maybe<Scalars['ID']['output']>;
  /** Why nothing was deleted (`USER_NOT_FOUND`), or null. */
  error?: Maybe<MutationError>;
  /**
   * The user that invited the deleted one, whose `invitees` lost it; null when there is none,
   * `error` is set, or the caller may not read other users.
   */
  inviter?: Maybe<User>;
  /** The whole query root, to read any list afresh in the same response. */
  query: Query;
  /** The user as it was before deletion; null when `error` is set. */
  user?: Maybe<User>;
};

/** One value per condition a client handles differently. Found in `MutationError.code`. */
export type ErrorCode =
  /**
   * The input breaks a rule (length, syntax, range, a conflicting sequence definition, a page size);
   * `field` names it and `message` says what to change.
   */
  | 'BAD_USER_INPUT'
  /** Another user already has this email. `field` is `email`. */
  | 'EMAIL_TAKEN'
  /** The caller's role may not do this to this object (e.g. a client touching `userid`). */
  | 'FORBIDDEN'
  /** This idempotency key was used before with other input. `field` is `idempotencyKey`. */
  | 'IDEMPOTENCY_KEY_REUSED'
  /**
   * Concurrent writers kept taking what this request needed until its bounded retries ran out;
   * nothing was stored. `retryable` is true.
   */
  | 'ID_CONTENTION'
  /** Another user already has this id (`importUsers`), with another name or email. `field` is `id`. */
  | 'ID_TAKEN'
  /** No user has the id given as `invitedById`. `field` is `invitedById`. */
  | 'INVITER_NOT_FOUND'
  /**
   * The reservation holds no value now: it was confirmed or released already, or its hold expired
   * and its value was handed out again. Nothing changed; allocate a new value.
   */
  | 'RESERVATION_NOT_FOUND'
  /**
   * The stored counter document was written by something else and cannot be trusted; `message` names
   * it and says how to repair it.
   */
  | 'SEQUENCE_CORRUPT'
  /** The allocation would pass the sequence's `max` or 2^53 - 1; nothing was consumed. */
  | 'SEQUENCE_EXHAUSTED'
  /** No sequence of this name and scope exists for the caller (only `createSequence` creates one). */
  | 'SEQUENCE_NOT_FOUND'
  /**
   * Not answered since 0.5.0: a gapless sequence keeps each waiting value in a document of its own,
   * so the number of values waiting for confirmation is no longer bounded.
   */
  | 'TOO_MANY_RESERVATIONS'
  /** No user has this id (`updateUser`, `deleteUser`). */
  | 'USER_NOT_FOUND';

/** Why a run of values is a hole. */
export type GapKind =
  /** Issued as a user id, but no user holds it (a failed insert, a crash, a stopped BLOCK, a deletion). */
  | 'MISSING'
  /** Released, or its hold expired: the next allocation hands it out again. */
  | 'RELEASED'
  /** Handed out to a client that has not confirmed or released it yet; its hold is still running. */
  | 'RESERVED';

/** How a user's `_id` is chosen. */
export type IdStrategy =
  /**
   * Hi/lo-style block: each service process reserves a block of ids with one `$inc` on the same
   * `userid` counter and hands them out locally, fetching the next block in the background before
   * this one runs out. Blocks last about 10 s of the process's creations (`ID_BLOCK_SIZE` to
   * `ID_BLOCK_SIZE_MAX` ids): about 1 command per user. Ids are unique across processes but not
   * issued in time order; a crash leaves gaps, never duplicates; a clean stop gives unused ids back
   * where it safely can.
   */
  | 'BLOCK'
  /**
   * The tutorial's first method: a `counters` collection whose `{ _id: "userid", seq: NumberLong }`
   * document is advanced with one atomic `findAndModify` + `$inc` per user (upsert, retried on the
   * upsert race's duplicate key). Costs 2 database commands per user; every insert serialises on
   * the one counter document. Ids are issued in time order.
   */
  | 'COUNTER'
  /**
   * The tutorial's second method: read the largest `_id`, insert max + 1, retry when another writer
   * took that `_id` first. Needs no counter document; costs 2 commands per attempt, and attempts grow
   * with concurrency. Retries only on a duplicate `_id`, bounded, with jittered backoff. Reissues the
   * id of a deleted newest user.
   */
  | 'OPTIMISTIC_LOOP'
  /**
   * For numbers that must have no holes (invoices): the `$inc` on the `userid` counter and the insert
   * run in one multi-document transaction (`w: majority`), so a refused insert (duplicate email, a
   * fault, a crash before the commit) rolls the increment back. Ids stay 1..N, in time order, never
   * reissued after a delete. Costs 3 commands per user (the `$inc`, the insert, the commit); one
   * transaction at a time per process, transient conflicts with other instances retried (bounded,
   * jittered), then `ID_CONTENTION`. Needs a replica set: on a standalone it is `BAD_USER_INPUT` on
   * `strategy`, never a fallback.
   */
  | 'TRANSACTION';

/** A user as another system numbered it, for `importUsers`. */
export type ImportUserInput = {
  /** When it was created in the other system; the import's time when absent. */
  createdAt?: InputMaybe<Scalars['DateTime']['input']>;
  /** Its email, under the rules of `CreateUserInput.email`; unique. */
  email?: InputMaybe<Scalars['String']['input']>;
  /** The id it had: the decimal string of a whole number from 1 to 2^53 - 1. */
  id: Scalars['ID']['input'];
  /** Its name, under the rules of `CreateUserInput.name`. */
  name: Scalars['String']['input'];
};

/** The answer of `importUsers`. */
export type ImportUsersPayload = {
  __typename?: 'ImportUsersPayload';
  /** Why the whole batch was refused (e.g. more than 1,000 inputs), or null. */
  error?: Maybe<MutationError>;
  /** How many results hold an error. */
  failed: Scalars['Int']['output'];
  /** How many results hold a user this request stored (`replayed: false`). */
  imported: Scalars['Int']['output'];
  /** The whole query root, to read any list afresh in the same response. */
  query: Query;
  /** How many results hold a user stored before with the same id, name and email (`replayed: true`). */
  replayed: Scalars['Int']['output'];
  /** One per input, in input order (empty when `error` refused the whole batch). */
  results: Array<CreateUsersResult>;
};

/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type Mutation = {
  __typename?: 'Mutation';
  /**
   * Move a sequence forward to at least `to`, never back (`$max`): after importing documents numbered
   * elsewhere, so the next allocation returns a value above theirs. Idempotent: a sequence already at
   * or past `to` is answered as it is. A client advances its own sequences, admin any (`userid`
   * too); a gapless sequence is refused (values it skipped would be holes nobody can confirm). A
   * sequence with a `period` is moved forward in the `period` given.
   */
  advanceSequence?: Maybe<SetSequencePayload>;
  /**
   * Consume `count` values of an existing sequence in one atomic step: the generic `nextval`. From a
   * gapless sequence: `count` values (1 to 1,000), each held for the caller as one of `reservations`
   * until it confirms or releases it, or its hold expires; released and expired values first, lowest
   * first, then new ones. All or nothing: when the sequence cannot issue them all, none is held.
   */
  allocateSequence?: Maybe<AllocateSequencePayload>;
  /**
   * Confirm a value of a gapless sequence once the document numbered with it is written: it is used
   * for good and never handed out again. Only the reservation that holds the value now confirms it
   * (also after its hold expired, as long as nobody took the value); otherwise
   * `RESERVATION_NOT_FOUND` and nothing changes. Confirming it again answers it confirmed and changes
   * nothing, so a retry is safe.
   */
  confirmReservation?: Maybe<ReservationPayload>;
  /**
   * Confirm many values of gapless sequences at once, each as `confirmReservation` would on its own:
   * one result per id, in order, an id refused alone with its code (`RESERVATION_NOT_FOUND`,
   * `BAD_USER_INPUT` for a malformed one) while the others are confirmed. Each reservation is
   * confirmed and answered once per batch, at the first id naming it; a later id naming it again is
   * refused alone (`BAD_USER_INPUT`). Confirming an id again in another request answers it confirmed
   * and changes nothing, so a retried batch is safe. More than 1,000 ids: the whole batch is refused
   * (`error`), nothing confirmed.
   */
  confirmReservations?: Maybe<ReservationsPayload>;
  /**
   * Define a sequence, owned by the calling client, in its own namespace of names: a name another
   * client uses is a different sequence. Idempotent: creating it again with the same options returns
   * it; different options are refused. Only this creates a sequence. The admin defines shared
   * sequences, or one of a client's as `<client>~<name>`.
   */
  createSequence?: Maybe<CreateSequencePayload>;
  /**
   * Create one user; its id comes from `strategy`. With `input.idempotencyKey`, a retry of the same
   * request returns the user the first one created instead of creating another.
   */
  createUser?: Maybe<CreateUserPayload>;
  /**
   * Create up to 1,000 users in one request. COUNTER and BLOCK take all ids with one `$inc` and write
   * them with one unordered insert; ids follow input order. Results come one per input, in input
   * order; a bad item (say, a duplicate email) fails alone.
   */
  createUsers?: Maybe<CreateUsersPayload>;
  /**
   * Delete a user. COUNTER and BLOCK never issue its id again; OPTIMISTIC_LOOP does when it was the
   * newest (it takes the largest stored id + 1). Users it invited keep `invitedById`; their
   * `invitedBy` becomes null.
   */
  deleteUser?: Maybe<DeleteUserPayload>;
  /**
   * Create users with the ids they already had (moving from another system), admin only. Each input
   * is stored with its `id` as given, or refused alone: `ID_TAKEN` when another user holds the id,
   * `EMAIL_TAKEN` for a taken email, `BAD_USER_INPUT` for a malformed item or an id twice in the
   * batch. The `userid` counter is first moved forward to the largest valid id of the batch
   * (`$max`, never back), so COUNTER, BLOCK (its next block), OPTIMISTIC_LOOP and TRANSACTION
   * continue above it. Idempotent: an input whose id is stored with the same name and email is
   * answered with that user (`replayed: true`).
   */
  importUsers?: Maybe<ImportUsersPayload>;
  /**
   * Give back a value of a gapless sequence that will not be used: the next allocation hands it out
   * again, before any new value. Releasing it again answers it released and changes nothing; a
   * confirmed value cannot be released (`RESERVATION_NOT_FOUND`).
   */
  releaseReservation?: Maybe<ReservationPayload>;
  /**
   * Give back many values of gapless sequences at once, each as `releaseReservation` would on its
   * own: one result per id, in order, an id refused alone with its code. Each reservation is released
   * and answered once per batch, at the first id naming it; a later id naming it again is refused
   * alone (`BAD_USER_INPUT`). Releasing an id again in another request answers it released and
   * changes nothing. More than 1,000 ids: the whole batch is refused.
   */
  releaseReservations?: Maybe<ReservationsPayload>;
  /**
   * Admin: set the last issued value of a sequence (a client's named `<client>~<name>`). `userid`
   * only moves forward; a gapless sequence and one with a `period` cannot be set.
   */
  setSequence?: Maybe<SetSequencePayload>;
  /**
   * Admin: give `userid` a display format, so every user answers a customer number beside its id
   * (`User.number`): `C-{seq:6}` writes id 42 as `C-000042`. The same syntax as a sequence's
   * `format`, without date parts. A format covers the ids from the first one nobody holds yet (above
   * the counter and every stored id; the counter moves up to just below it) onwards, so a number once
   * answered never changes: ids issued before keep their format, or none. Its padding must hold that
   * first id; ids past the padding answer a null `number` (never truncated) until a wider format is
   * set. Idempotent: the newest format again is answered as it is. Other sequences take their format
   * once, with `createSequence`.
   */
  setSequenceFormat?: Maybe<SetSequencePayload>;
  /** Change a user's name or email, with the same validation and uniqueness as at creation. */
  updateUser?: Maybe<UpdateUserPayload>;
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationAdvanceSequenceArgs = {
  name: Scalars['String']['input'];
  period?: InputMaybe<Scalars['String']['input']>;
  scope?: InputMaybe<Scalars['String']['input']>;
  to: Scalars['Long']['input'];
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationAllocateSequenceArgs = {
  count?: InputMaybe<Scalars['Int']['input']>;
  name: Scalars['String']['input'];
  scope?: InputMaybe<Scalars['String']['input']>;
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationConfirmReservationArgs = {
  id: Scalars['ID']['input'];
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationConfirmReservationsArgs = {
  ids: Array<Scalars['ID']['input']>;
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationCreateSequenceArgs = {
  input: CreateSequenceInput;
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationCreateUserArgs = {
  input: CreateUserInput;
  strategy?: InputMaybe<IdStrategy>;
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationCreateUsersArgs = {
  inputs: Array<CreateUserInput>;
  strategy?: InputMaybe<IdStrategy>;
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationDeleteUserArgs = {
  id: Scalars['ID']['input'];
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationImportUsersArgs = {
  inputs: Array<ImportUserInput>;
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationReleaseReservationArgs = {
  id: Scalars['ID']['input'];
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationReleaseReservationsArgs = {
  ids: Array<Scalars['ID']['input']>;
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationSetSequenceArgs = {
  name: Scalars['String']['input'];
  scope?: InputMaybe<Scalars['String']['input']>;
  value: Scalars['Long']['input'];
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationSetSequenceFormatArgs = {
  format: Scalars['String']['input'];
  name: Scalars['String']['input'];
  scope?: InputMaybe<Scalars['String']['input']>;
};


/** The service's write operations. Each answers a payload whose `error` holds an expected failure. */
export type MutationUpdateUserArgs = {
  id: Scalars['ID']['input'];
  input: UpdateUserInput;
};

/**
 * An expected failure, returned as data: of a mutation, of one `createUsers` item, or of one
 * `sequences` edge whose counter cannot be read.
 */
export type MutationError = {
  __typename?: 'MutationError';
  /** What happened, as a value to branch on. */
  code: ErrorCode;
  /**
   * The input path the error is about (`email`, `input.name`, `inputs.3.email`, `name`), to show the
   * message beside that field; null when it is about no one field.
   */
  field?: Maybe<Scalars['String']['output']>;
  /** Written to be shown to a person. */
  message: Scalars['String']['output'];
  /** True when sending the same request again (with the same idempotency key) may succeed. */
  retryable: Scalars['Boolean']['output'];
};

/**
 * An object that `Query.node` fetches again by its id alone (Relay's Global Object Identification).
 * Ids are unique across types without encoding: a user's id is the decimal string of its numeric `_id`
 * (`"42"`), a sequence's is its name (and `/scope`), which starts with a letter (`"invoice"`,
 * `"invoice/acme"`), so the two never collide. Both are the ids of 0.3, unchanged.
 */
export type Node = {
  /** Unique across all types: digits for a `User`, a letter first for a `Sequence`. */
  id: Scalars['ID']['output'];
};

/** Where a page sits in its list (Relay's PageInfo). */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** The cursor of the last item of this page; null for an empty page. */
  endCursor?: Maybe<Scalars['String']['output']>;
  /** True when more items follow this page. */
  hasNextPage: Scalars['Boolean']['output'];
  /** True when items precede this page. */
  hasPreviousPage: Scalars['Boolean']['output'];
  /** The cursor of the first item of this page; null for an empty page. */
  startCursor?: Maybe<Scalars['String']['output']>;
};

/** The service's read operations. */
export type Query = {
  __typename?: 'Query';
  /**
   * The value the next allocation of an existing sequence will return, without consuming it: the same
   * as that sequence's `next` (client caches read it from there). As people write it: the
   * sequence's `formattedNext` (`sequence(name:) { next formattedNext }`).
   */
  nextSequence?: Maybe<Scalars['Long']['output']>;
  /**
   * The object with this id (a `User` or a `Sequence`, told apart by the id's first character), or
   * null when there is none or it is not the caller's; each is authorized as `user` and `sequence`
   * are. A malformed id is `BAD_USER_INPUT`.
   */
  node?: Maybe<Node>;
  /**
   * The objects with these ids, in the same order, each as `node` answers it (null where it would be
   * null): at most 100 ids.
   */
  nodes?: Maybe<Array<Maybe<Node>>>;
  /** The sequence with this name and scope, or null when it does not exist or is not the caller's. */
  sequence?: Maybe<Sequence>;
  /**
   * The caller's sequences and `userid` (every sequence, for admin), ordered by name then scope, a page
   * at a time: a cursor connection (Relay) like `users`, 20 by default. A counter that cannot be read
   * is an edge with `error` in its place, never a failure of the list.
   */
  sequences?: Maybe<SequenceConnection>;
  /** Per strategy, since this service process started: what creating users cost. */
  strategyStats?: Maybe<Array<StrategyStats>>;
  /** The user with this id, or null when there is none. A malformed id is `BAD_USER_INPUT`. */
  user?: Maybe<User>;
  /** The user with this email (compared after the same normalisation as at creation), or null. */
  userByEmail?: Maybe<User>;
  /**
   * Users, a page at a time: a cursor connection (Relay). Give `first` (and `after`) to page forward
   * or `last` (and `before`) to page backward; pages hold 1 to 100 users, 20 by default.
   */
  users?: Maybe<UserConnection>;
  /**
   * Who the caller is. Anyone may ask; a token that is presented but unknown or malformed is
   * `UNAUTHENTICATED` for every field, in every mode.
   */
  viewer?: Maybe<Viewer>;
};


/** The service's read operations. */
export type QueryNextSequenceArgs = {
  name: Scalars['String']['input'];
  scope?: InputMaybe<Scalars['String']['input']>;
};


/** The service's read operations. */
export type QueryNodeArgs = {
  id: Scalars['ID']['input'];
};


/** The service's read operations. */
export type QueryNodesArgs = {
  ids: Array<Scalars['ID']['input']>;
};


/** The service's read operations. */
export type QuerySequenceArgs = {
  name: Scalars['String']['input'];
  scope?: InputMaybe<Scalars['String']['input']>;
};


/** The service's read operations. */
export type QuerySequencesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  scope?: InputMaybe<Scalars['String']['input']>;
};


/** The service's read operations. */
export type QueryUserArgs = {
  id: Scalars['ID']['input'];
};


/** The service's read operations. */
export type QueryUserByEmailArgs = {
  email: Scalars['String']['input'];
};


/** The service's read operations. */
export type QueryUsersArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<UserFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  order?: InputMaybe<UserOrder>;
};

/**
 * The bounds of one HTTP request (over all its aliases and batched operations). Every answer says
 * how much of the first three and of `scannedValues` it used, in `extensions.cost`.
 */
export type RequestLimits = {
  __typename?: 'RequestLimits';
  /** Aliases in one document. */
  aliases: Scalars['Int']['output'];
  /** Operations in one batched (array) request. */
  batchedOperations: Scalars['Int']['output'];
  /**
   * The caller's budgets over time, shared by every instance of the service: one per budget, with
   * what is left of it now. A caller without a token is counted by its address, a client by its
   * token. Past one, the call is refused `RATE_LIMITED` with `retryAfter` seconds (a request that
   * would create users past `usersCreated`: HTTP 429 with `Retry-After`).
   */
  budgets: Array<CallerBudget>;
  /**
   * graphql-armor's cost of one document (it grows with depth: a page of users two inviters deep costs
   * about 11,600).
   */
  documentCost: Scalars['Int']['output'];
  /** How deep one document may nest. */
  documentDepth: Scalars['Int']['output'];
  /** Items one request's pages may list, page sizes multiplied through nesting. */
  listedItems: Scalars['Int']['output'];
  /** The largest page (`first` or `last`) of any list; 20 when neither is given. */
  pageSize: Scalars['Int']['output'];
  /**
   * Stored values one request's `Sequence.gaps` calls may read: each call counts as the 10,000 it may
   * read, multiplied through the lists above it (`nodes(ids:)`, `sequences`).
   */
  scannedValues: Scalars['Int']['output'];
  /** `allocateSequence` calls one request may make. */
  sequenceAllocations: Scalars['Int']['output'];
  /** Users one request may create (1 without a token in production). */
  usersCreated: Scalars['Int']['output'];
  /** Values one `allocateSequence` may consume. */
  valuesPerAllocation: Scalars['Int']['output'];
};

/** The answer of `confirmReservation` and `releaseReservation`. */
export type ReservationPayload = {
  __typename?: 'ReservationPayload';
  /** Why nothing changed (`RESERVATION_NOT_FOUND`), or null. */
  error?: Maybe<MutationError>;
  /** The whole query root, to read any list afresh in the same response. */
  query: Query;
  /** The sequence after the change; null when `error` is set. */
  sequence?: Maybe<Sequence>;
  /** The value confirmed or released; null when `error` is set. */
  value?: Maybe<Scalars['Long']['output']>;
};

/**
 * The outcome of one id of `confirmReservations` or `releaseReservations`: exactly one of `value` and
 * `error` is set.
 */
export type ReservationResult = {
  __typename?: 'ReservationResult';
  /**
   * Why this id changed nothing (`RESERVATION_NOT_FOUND`, `BAD_USER_INPUT` for a malformed id or a
   * repeat of an earlier one), or null.
   */
  error?: Maybe<MutationError>;
  /** The position of the id this result belongs to. */
  index: Scalars['Int']['output'];
  /** The sequence after the change; null when `error` is set. */
  sequence?: Maybe<Sequence>;
  /** The value confirmed or released; null when `error` is set. */
  value?: Maybe<Scalars['Long']['output']>;
};

/** The answer of `confirmReservations` and `releaseReservations`. */
export type ReservationsPayload = {
  __typename?: 'ReservationsPayload';
  /** Why the whole batch was refused (more than 1,000 ids), or null. */
  error?: Maybe<MutationError>;
  /** How many results hold an error. */
  failed: Scalars['Int']['output'];
  /** The whole query root, to read any list afresh in the same response. */
  query: Query;
  /** One per id, in order (empty when `error` refused the whole batch). */
  results: Array<ReservationResult>;
  /**
   * How many results hold a value settled (by this request, or earlier with the same id): each
   * reservation once, since a repeat of it in the batch is refused.
   */
  settled: Scalars['Int']['output'];
};

/** What a caller may do (the table "Who may call what" in the docs). */
export type Role =
  /** The admin token: everything. */
  | 'ADMIN'
  /** No token (in production: `createUser` and `viewer` only). */
  | 'ANONYMOUS'
  /** A client token: reads users, creates them, owns sequences. */
  | 'CLIENT';

/** A counter document and the definition stored on it. */
export type Sequence = Node & {
  __typename?: 'Sequence';
  /**
   * For a sequence with a `period`: the period `value` was issued in, as `2026`, `2026-12` or
   * `2026-12-31`; null before its first allocation. `value` and `next` count in this period; the
   * first allocation in a later period issues `start` again.
   */
  currentPeriod?: Maybe<Scalars['String']['output']>;
  /**
   * For the `userid` counter only: `value` minus the largest `_id` stored in `users`. Negative means
   * the next COUNTER insert will find its id taken and repair the counter first.
   */
  drift?: Maybe<Scalars['Long']['output']>;
  /** How its values are written for people (`INV-{YYYY}-{seq:6}`); null: as plain numbers. */
  format?: Maybe<Scalars['String']['output']>;
  /**
   * `next` in the sequence's `format` and `currentPeriod` (`INV-2026-000043`), what the next
   * allocation answers unless a new period starts first; null without a format or once exhausted.
   * Before the first allocation of a sequence with a `period`, in the period the database's clock is
   * in now (`INV-2026-000001`): the clock that decides the period of that allocation.
   */
  formattedNext?: Maybe<Scalars['String']['output']>;
  /**
   * `value` in the sequence's `format` and `currentPeriod` (`INV-2026-000042`); null without a format
   * or before the first allocation. For `userid`, `format` is its newest format
   * (`setSequenceFormat`), and `value` and `next` are written in the format that covers each.
   */
  formattedValue?: Maybe<Scalars['String']['output']>;
  /**
   * True when every value must be confirmed: values not confirmed (released, or held past their
   * hold) are handed out again before new ones, so the confirmed values have no hole.
   */
  gapless: Scalars['Boolean']['output'];
  /**
   * The holes, lowest first, a page at a time, for an auditor: of a gapless sequence its values not
   * confirmed (yet), of `userid` the ids below the largest stored one that no user holds. Null for
   * any other sequence: the service cannot see which of its values clients used. Each call reads up
   * to 10,000 stored values and counts as that many against the request's `limits.scannedValues`
   * (40,000: four calls per request).
   */
  gaps?: Maybe<SequenceGaps>;
  /** For a gapless sequence: how long an allocated value is held for its confirmation, in seconds. */
  holdSeconds?: Maybe<Scalars['Int']['output']>;
  /**
   * Stable, from name and scope (`invoice` or `invoice/acme`), so client caches normalise it; starts
   * with a letter, so it never equals a user's id. Each client names its sequences in a namespace of
   * its own; the admin sees a client's sequence as `<client>~<name>` (`billing~invoice/acme`).
   */
  id: Scalars['ID']['output'];
  /** The largest value this sequence may issue, if limited. */
  max?: Maybe<Scalars['Long']['output']>;
  /** The sequence's name. */
  name: Scalars['String']['output'];
  /**
   * The value the next allocation will return; null once the sequence is exhausted (its `max`, or
   * 2^53 - 1, was issued).
   */
  next?: Maybe<Scalars['Long']['output']>;
  /** The client that created it; null for one the admin created, `userid`, or a 0.1 counter. */
  owner?: Maybe<Scalars['String']['output']>;
  /**
   * For a sequence with a `period` that is not gapless: its ended periods, oldest first, each with
   * the last value issued in it, a page at a time. Null for any other (a gapless sequence keeps each
   * period's values: `gaps(period:)`).
   */
  pastPeriods?: Maybe<SequencePastPeriods>;
  /** When it restarts at `start`; null: never. */
  period?: Maybe<SequencePeriod>;
  /** Null for the unscoped sequence of this name. */
  scope?: Maybe<Scalars['String']['output']>;
  /** The first value it issues. */
  start: Scalars['Long']['output'];
  /** Added for each value. */
  step: Scalars['Int']['output'];
  /** The IANA time zone of `period`; null without one. */
  timeZone?: Maybe<Scalars['String']['output']>;
  /** When it last changed; null when it was never written. */
  updatedAt?: Maybe<Scalars['DateTime']['output']>;
  /** The last value issued; `start - step` when none has been issued yet. */
  value: Scalars['Long']['output'];
};


/** A counter document and the definition stored on it. */
export type SequenceGapsArgs = {
  after?: InputMaybe<Scalars['Long']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  period?: InputMaybe<Scalars['String']['input']>;
};


/** A counter document and the definition stored on it. */
export type SequencePastPeriodsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** One event of `sequenceChanged`. */
export type SequenceChange = {
  __typename?: 'SequenceChange';
  /** Pass it as `after` to resume after this event. */
  cursor: Scalars['String']['output'];
  /** The sequence as it is after the change. */
  sequence: Sequence;
};

/** A page of sequences. */
export type SequenceConnection = {
  __typename?: 'SequenceConnection';
  /** The sequences of this page, each with its cursor. */
  edges: Array<SequenceEdge>;
  /** Where this page sits in the whole list. */
  pageInfo: PageInfo;
  /** How many sequences the whole list holds (with its `scope`), not just this page. */
  totalCount: Scalars['Int']['output'];
};

/** A sequence in a list, with its cursor: exactly one of `node` and `error` is set. */
export type SequenceEdge = {
  __typename?: 'SequenceEdge';
  /** Pass it as `after` or `before` to page from here; the sequence's `id`, also when `error` is set. */
  cursor: Scalars['String']['output'];
  /**
   * Why this counter cannot be read (`SEQUENCE_CORRUPT`: its document was written by something else
   * with wrong types; `message` names it and the repair), or null. It keeps its place in the list, so
   * the other sequences still read and paging passes it like any other.
   */
  error?: Maybe<MutationError>;
  /** The sequence; null when `error` is set. */
  node?: Maybe<Sequence>;
};

/** Consecutive values (`step` apart) missing for one reason: `first`, `first + step`, ..., `last`. */
export type SequenceGap = {
  __typename?: 'SequenceGap';
  /** How many values. */
  count: Scalars['Int']['output'];
  /** The first missing value. */
  first: Scalars['Long']['output'];
  /** Why they are missing. */
  kind: GapKind;
  /** The last missing value. */
  last: Scalars['Long']['output'];
};

/** A page of a sequence's holes. */
export type SequenceGaps = {
  __typename?: 'SequenceGaps';
  /** True when nothing above `scannedThrough` is left to examine. */
  complete: Scalars['Boolean']['output'];
  /** The holes of this page, lowest first, each a run of consecutive values. */
  runs: Array<SequenceGap>;
  /** Every value up to this one was examined; pass it as `after` for the next page. */
  scannedThrough: Scalars['Long']['output'];
};

/** A period that has ended, as its counter stood when the next began. */
export type SequencePastPeriod = {
  __typename?: 'SequencePastPeriod';
  /** `value` in the sequence's `format` and this period (`INV-2026-000412`); null without a format. */
  formattedValue?: Maybe<Scalars['String']['output']>;
  /** The period (`2026`, `2026-12`, `2026-12-31`). */
  period: Scalars['String']['output'];
  /** The last value issued in it. */
  value: Scalars['Long']['output'];
};

/** A page of a sequence's ended periods, oldest first. */
export type SequencePastPeriods = {
  __typename?: 'SequencePastPeriods';
  /** True when later ended periods follow: ask again with `after` the last `period` here. */
  hasMore: Scalars['Boolean']['output'];
  /** The periods of this page. */
  periods: Array<SequencePastPeriod>;
};

/** When a sequence restarts at its `start`. */
export type SequencePeriod =
  /** At each midnight of its time zone. */
  | 'DAILY'
  /** At the first midnight of each month of its time zone. */
  | 'MONTHLY'
  /** At the first midnight of each year of its time zone: invoice numbers per year. */
  | 'YEARLY';

/** Values consumed by one `allocateSequence`: `first`, `first + step`, ..., `last`. */
export type SequenceRange = {
  __typename?: 'SequenceRange';
  /** How many values. */
  count: Scalars['Int']['output'];
  /** The first value consumed. */
  first: Scalars['Long']['output'];
  /**
   * Each value, `first` to `last`, in the sequence's `format` and `period`; null for a sequence
   * without a format, and for an allocation of more than 1,000 values (numbers only: the answer
   * stays small).
   */
  formatted?: Maybe<Array<Scalars['String']['output']>>;
  /** The last value consumed. */
  last: Scalars['Long']['output'];
  /** The period the values were issued in (`2026`); null for a sequence without a `period`. */
  period?: Maybe<Scalars['String']['output']>;
  /** The distance between consecutive values. */
  step: Scalars['Int']['output'];
};

/** A value of a gapless sequence held for the caller until it confirms or releases it. */
export type SequenceReservation = {
  __typename?: 'SequenceReservation';
  /** When the hold ends: after that, the value may be handed out again unless confirmed first. */
  expiresAt: Scalars['DateTime']['output'];
  /** The value in the sequence's `format`; null for a sequence without a format. */
  formatted?: Maybe<Scalars['String']['output']>;
  /** Pass it to `confirmReservation` or `releaseReservation`. */
  id: Scalars['ID']['output'];
  /**
   * The period the value counts in (`2026`); null for a sequence without a `period`. A value of an
   * ended period may be handed out again after it ended, so that period keeps no hole.
   */
  period?: Maybe<Scalars['String']['output']>;
  /** The value held. */
  value: Scalars['Long']['output'];
};

/** The answer of `setSequence`. */
export type SetSequencePayload = {
  __typename?: 'SetSequencePayload';
  /** Why nothing was changed, or null. */
  error?: Maybe<MutationError>;
  /** The whole query root, to read any list afresh in the same response. */
  query: Query;
  /** The sequence after the change; null when `error` is set. */
  sequence?: Maybe<Sequence>;
};

/** What creating users has cost one strategy, since this service process started. */
export type StrategyStats = {
  __typename?: 'StrategyStats';
  /** Database commands sent for this strategy's creations, divided by the users they created. */
  commandsPerUser?: Maybe<Scalars['Float']['output']>;
  /** Counter repairs (`$max` to the largest stored `_id`) after an issued id was taken. */
  counterRepairs: Scalars['Int']['output'];
  /** Inserts retried because the chosen `_id` was taken. */
  duplicateKeyRetries: Scalars['Int']['output'];
  /** Inserts it attempted, duplicate-key retries included. */
  insertAttempts: Scalars['Int']['output'];
  /** Median latency of one creation call, in milliseconds. */
  p50Ms?: Maybe<Scalars['Float']['output']>;
  /** 95th percentile latency, in milliseconds. */
  p95Ms?: Maybe<Scalars['Float']['output']>;
  /** 99th percentile latency, in milliseconds. */
  p99Ms?: Maybe<Scalars['Float']['output']>;
  /** The strategy. */
  strategy: IdStrategy;
  /**
   * Transactions run again after a transient error (a write conflict with another service instance,
   * a lost primary) and commits sent again after an unknown result. Only TRANSACTION runs
   * transactions; 0 for the others.
   */
  transactionRetries: Scalars['Int']['output'];
  /** Users it created. */
  usersCreated: Scalars['Int']['output'];
  /**
   * Of `transactionRetries`, those caused by a write conflict: another transaction wrote the same
   * counter or user first.
   */
  writeConflicts: Scalars['Int']['output'];
};

/**
 * Changes as they happen, over WebSocket (graphql-ws) on the same URL, `/graphql`: send the token in
 * the `connection_init` payload as `{ authorization: "Bearer <token>" }`. Each event carries a `cursor`;
 * subscribe again with `after: <the last cursor>` to receive everything missed since, none twice.
 * Events come from MongoDB change streams, so writes of every service instance are seen.
 */
export type Subscription = {
  __typename?: 'Subscription';
  /**
   * A sequence after each allocation, set or reservation change: first as it stands when the
   * subscription starts (unless resuming with `after`), then after each change. Another owner's
   * sequence answers `SEQUENCE_NOT_FOUND`, as `sequence` does over HTTP.
   */
  sequenceChanged?: Maybe<SequenceChange>;
  /** Each user created from now on (or after `after`) that the filter admits. */
  userCreated?: Maybe<UserCreated>;
};


/**
 * Changes as they happen, over WebSocket (graphql-ws) on the same URL, `/graphql`: send the token in
 * the `connection_init` payload as `{ authorization: "Bearer <token>" }`. Each event carries a `cursor`;
 * subscribe again with `after: <the last cursor>` to receive everything missed since, none twice.
 * Events come from MongoDB change streams, so writes of every service instance are seen.
 */
export type SubscriptionSequenceChangedArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  name: Scalars['String']['input'];
  scope?: InputMaybe<Scalars['String']['input']>;
};


/**
 * Changes as they happen, over WebSocket (graphql-ws) on the same URL, `/graphql`: send the token in
 * the `connection_init` payload as `{ authorization: "Bearer <token>" }`. Each event carries a `cursor`;
 * subscribe again with `after: <the last cursor>` to receive everything missed since, none twice.
 * Events come from MongoDB change streams, so writes of every service instance are seen.
 */
export type SubscriptionUserCreatedArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<UserFilter>;
};

/** What to change of a user; absent fields are kept. */
export type UpdateUserInput = {
  /** The new email, unique among users; null removes it. */
  email?: InputMaybe<Scalars['String']['input']>;
  /** The new name, same rules as at creation. */
  name?: InputMaybe<Scalars['String']['input']>;
};

/** The answer of `updateUser`. */
export type UpdateUserPayload = {
  __typename?: 'UpdateUserPayload';
  /** Why nothing was changed, or null. */
  error?: Maybe<MutationError>;
  /** The whole query root, to read any list afresh in the same response. */
  query: Query;
  /** The user as changed; null when `error` is set. */
  user?: Maybe<User>;
};

/** A user, with the small sequential id the chosen strategy gave it. */
export type User = Node & {
  __typename?: 'User';
  /**
   * When it was created (for an imported user: the `createdAt` its import gave, else the import's
   * time).
   */
  createdAt: Scalars['DateTime']['output'];
  /**
   * The strategy that chose this user's id. An imported user (see `importedAt`) answers `COUNTER`:
   * its id is one the `userid` counter has passed, as if that counter had issued it.
   */
  createdWith: IdStrategy;
  /** Unique among users when set. */
  email?: Maybe<Scalars['String']['output']>;
  /** The decimal string of the numeric `_id`. */
  id: Scalars['ID']['output'];
  /**
   * When `importUsers` stored this user with the id it already had; null for a user this service
   * numbered.
   */
  importedAt?: Maybe<Scalars['DateTime']['output']>;
  /**
   * The user whose id was given as `invitedById`; null when there was none, it was deleted, or the
   * caller may not read other users.
   */
  invitedBy?: Maybe<User>;
  /** The id given as `invitedById` at creation, kept when that user is deleted. */
  invitedById?: Maybe<Scalars['ID']['output']>;
  /**
   * The users this user invited, a page at a time (same arguments as `Query.users`); null when the
   * caller may not read other users.
   */
  invitees?: Maybe<UserConnection>;
  /** 1 to 100 visible characters. */
  name: Scalars['String']['output'];
  /**
   * The user's number as people write it (`C-000042`): `id` in the `userid` format that covers it
   * (`setSequenceFormat`), read from the id, so every strategy's users answer it alike and it never
   * changes; null for an id issued before any format, or past its format's padding.
   */
  number?: Maybe<Scalars['String']['output']>;
};


/** A user, with the small sequential id the chosen strategy gave it. */
export type UserInviteesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  order?: InputMaybe<UserOrder>;
};

/** A page of users. */
export type UserConnection = {
  __typename?: 'UserConnection';
  /** The users of this page, each with its cursor. */
  edges: Array<UserEdge>;
  /** Where this page sits in the whole list. */
  pageInfo: PageInfo;
  /** How many users the whole list holds (with its filter), not just this page. */
  totalCount: Scalars['Int']['output'];
};

/** One event of `userCreated`. */
export type UserCreated = {
  __typename?: 'UserCreated';
  /** Pass it as `after` to resume after this event. */
  cursor: Scalars['String']['output'];
  /** The user created. */
  user: User;
};

/** A user in a list, with its cursor. */
export type UserEdge = {
  __typename?: 'UserEdge';
  /** Pass it as `after` or `before` to page from here. */
  cursor: Scalars['String']['output'];
  /** The user. */
  node: User;
};

/** Narrows a users list; every field given must match. */
export type UserFilter = {
  /** Only users whose id was chosen by this strategy. */
  createdWith?: InputMaybe<IdStrategy>;
  /** Only users invited by the user with this id. */
  invitedById?: InputMaybe<Scalars['ID']['input']>;
};

/** The order of a users list. */
export type UserOrder =
  /** Oldest id first (1, 2, 3, ...). */
  | 'ID_ASC'
  /** Newest id first: what a table of recent sign-ups shows. */
  | 'ID_DESC';

/** Who the caller is, as the request's token proves it. */
export type Viewer = {
  __typename?: 'Viewer';
  /** The client's name (the `owner` of the sequences it creates); null for admin and anonymous. */
  client?: Maybe<Scalars['String']['output']>;
  /**
   * What one request of this caller may ask for (a request beyond any of them is refused whole), and
   * its budgets over time (`budgets`).
   */
  limits: RequestLimits;
  /** The caller's role. Outside production a request without a token is the client `anonymous`. */
  role: Role;
};
