/**
 * Every bound a request meets, in one place, each with its reason: what one request may create,
 * allocate and list, how large its pages are, what its GraphQL document and its JSON body may
 * hold, and how much an answer's errors may say.
 *
 * Why one module: these numbers lived in five files (the HTTP layer, the role policy, the Apollo
 * set-up, the request planner and the users component), and the page size was written twice. Now
 * the HTTP layer, src/auth, src/graphql, src/users and src/sequences import them from here; this
 * module imports nothing, so it sits below every component. docs/operations.md ("Per-request
 * bounds") states them for clients, and test/limits.test.ts checks the docs against this module.
 *
 * `FIELD_LIMITS` is the request planner's table (src/graphql/request-bounds.ts): which fields create
 * users, allocate or list a page. Like the role table it fails closed in a test: test/limits.test.ts
 * walks the schema and fails when a mutation, or any field that returns a connection, has no row,
 * so a new paged or user-creating field cannot escape the per-request bounds.
 */

/** The most users one HTTP request may create, over every alias and batched operation. */
export const USERS_PER_REQUEST = {
  /** A sign-up page creates one user per request; a batch is a back end's job (it has a token). */
  anonymous: 1,
  /** As many as one `createUsers` may hold: a request creates at most one full batch. */
  withToken: 1_000,
} as const;

/**
 * The most inputs of one `createUsers`: the ids of a batch are one `$inc` and its documents one
 * `insertMany`, and 1,000 keeps that insert well under MongoDB's 16 MB command and 100,000-write
 * batch limits while spreading the request's cost over many users.
 */
export const USERS_PER_BATCH = 1_000;

/**
 * Users of `createUsers` batches one process creates at once (src/users/batch-admission.ts): four
 * full batches. More wait their turn, so 64 concurrent batches of 1,000 hold about 150 MB, not 400.
 */
export const BATCH_USERS_IN_CREATION = 4 * USERS_PER_BATCH;

/**
 * Times a TRANSACTION group transaction (src/users/transaction-groups.ts) runs again after an
 * email or idempotency key of its documents was refused. Inside a transaction the first refusal
 * aborts it, so a group learns of one taken value per transaction: a `createUsers` of 500 new and
 * 500 taken emails ran 501 transactions of about 500 inserts each (11.4 s). Now, after a refusal,
 * one `find` takes out every document whose value is stored or repeated in the group, in one pass;
 * running again is then refused only by a value stored since that `find` (a concurrent writer), so
 * two runs suffice in practice and 3 leaves room for a race or two. Past it, the documents left
 * answer ID_CONTENTION (retryable, nothing stored), as after too many conflicts.
 */
export const TRANSACTION_GROUP_RERUNS = 3;

/**
 * `/graphql` requests one process executes at once; the others wait, once their body has arrived
 * (a body still arriving holds no turn, so slow senders cannot take them all), in arrival order, within their own deadline (REQUEST_TIMEOUT_MS: past it they are answered 503,
 * retryable, and never run). Why: a request in execution holds its body, document, context and
 * answer on the heap while it runs; with 512 in execution these outlived the young generation's
 * collections, were copied and promoted, and the collector's work per user grew: BLOCK made
 * 0.62x its users per second at 64 in flight. In `npm run bench`, 64 in flight gave BLOCK and
 * TRANSACTION more users per second than 256 or 512, and COUNTER nearly as many (0.97x at 256,
 * 1.09x at 512); at 512 in flight this bound gave BLOCK 1.28x the users per second of no bound,
 * at 0.83x the service CPU per user and a lower peak RSS (paired, `npm run bench:compare`). The
 * price is COUNTER's: two round trips per user, it is bound by the database's answers rather than
 * the service's CPU, and more requests in execution hide more of them; at 512 in flight on a
 * loaded machine the bound made 0.6x to 0.7x its users per second. So a burst runs about as a
 * process does at 64 in flight, whatever the strategy.
 */
export const REQUESTS_IN_EXECUTION = 64;

/**
 * Connections the kernel holds for the HTTP server between their handshake and the server's
 * accept (the `listen` backlog; Linux caps it at `net.core.somaxconn`, 4096 by default since 5.4).
 * Why: a burst of new callers arrives as a burst of connections, and while the event loop is busy
 * it accepts none; past the backlog the kernel drops their SYNs, and each one waits out TCP's
 * retry, 1 s and then 3 s. Node's default (511) dropped 488 of 1,000 connections opened at once
 * (test/http/connection-burst.test.ts), and 133 of 512 connections opened at once against a
 * service still busy with the previous 512 waited 3 s for their first answer: the p99 of a burst
 * was the SYN retry. A queued connection costs the kernel a few hundred bytes and the service
 * nothing until it is accepted.
 */
export const LISTEN_BACKLOG = 4096;

/**
 * `allocateSequence` calls one request may make: each is a write on one counter document, and a
 * request of many aliased allocations would hold that document against every other writer.
 */
export const ALLOCATIONS_PER_REQUEST = 10;

/** Values one `allocateSequence` may consume: a block the size of BLOCK's largest (ID_BLOCK_SIZE_MAX). */
export const VALUES_PER_ALLOCATION = 10_000;

/**
 * Values of a gapless sequence one `allocateSequence` may hold, and reservation ids one
 * `confirmReservations` or `releaseReservations` may settle. Each held value is a document of its
 * own and an item of the answer (its id, value, formatted number, expiry: about 150 bytes), so a
 * thousand keeps one request's writes to a few commands of at most a thousand documents each and
 * its answer near 150 kB, as `createUsers` does with USERS_PER_REQUEST.withToken.
 */
export const RESERVATIONS_PER_REQUEST = 1_000;

/**
 * Items one request's pages may list in all, page sizes multiplied through nesting (a page of 100
 * users with 10 invitees each lists 1,100): the answer is serialised on the event loop, and
 * `/health` must not wait behind one request's tens of thousands of items.
 */
export const LISTED_ITEMS_PER_REQUEST = 2_000;

/** Page sizes of every connection (`users`, `invitees`, `sequences`). */
export const PAGE_SIZE = {
  /** A page without `first` or `last`: a screenful. */
  default: 20,
  /** One page reads at most this many documents (plus one, to tell whether another follows). */
  max: 100,
} as const;

/**
 * Gapless sequences (src/sequences/reservations.ts). A hold is at least a second (the client must
 * have time to write its document) and at most an hour (an abandoned value must come back the
 * same day).
 */
export const GAPLESS = {
  holdSeconds: { min: 1, max: 3_600, default: 60 },
} as const;

/**
 * A sequence's display format (src/sequences/format.ts): at most 64 characters, and a padded
 * number at most 16 digits wide, the digits of 2^53 - 1, the largest value a sequence issues. An
 * allocation answers its values formatted when it took at most 1,000 (a formatted value is at most
 * 80 characters, so a request's `ALLOCATIONS_PER_REQUEST` lists stay within 10,000 strings, under
 * 1 MB, as the listed-items bound keeps lists off the event loop); a larger block is numbers
 * only, the `format` and `period` answered with it. `userid` keeps at most 100 formats, each
 * from the id it was set at (every user's number is read against them, and its counter document
 * stays small).
 */
export const SEQUENCE_FORMAT = {
  maxLength: 64,
  maxWidth: 16,
  valuesFormatted: 1_000,
  versions: 100,
} as const;

/**
 * `Sequence.gaps`: runs per page (a page of them is listed like a page of items, so they count
 * against LISTED_ITEMS_PER_REQUEST), and stored user ids read per call to find `userid`'s holes
 * (one batch of `_id`s only, about 200 kB; a larger table is audited page by page).
 */
export const GAPS = {
  perPage: PAGE_SIZE.max,
  idsScanned: 10_000,
} as const;

/**
 * Stored values the `gaps` calls of one request may read in all. Each call counts as the most it
 * may read (`GAPS.idsScanned` ids of `userid`, or of a gapless sequence's waiting values), multiplied through the lists above it, since the request is planned before any
 * sequence is read. Why: the listed-items bound counts a `gaps` page by its runs, not by the ids
 * read to find them, so `nodes(ids:)` naming `userid` 100 times asked for 100 full scans in one
 * 975-byte request (8.9 s with 7,711 users on the stand-in, other requests waiting behind it). Four
 * calls: an auditor pages through one sequence a call at a time, and a few sequences side by side
 * still fit.
 */
export const SCANNED_VALUES_PER_REQUEST = 4 * GAPS.idsScanned;

/**
 * GraphQL subscriptions, over WebSocket and Server-Sent Events (counted by
 * src/graphql/subscription-holdings.ts; sockets admitted by src/budgets/admission.ts). Each subscription holds a
 * change stream (a server cursor and a getMore waiting at a time), so they are counted: per
 * connection (one browser tab's needs), per client over all its connections in one process, and
 * connections per process. The keep-alive ping every 12 s (graphql-ws's default) drops a peer that
 * did not answer the previous one, so a vanished client frees its places within about 24 s. A
 * client message (a `subscribe` with its document, an SSE request's body) is at most 64 kB. An SSE
 * request is one connection holding one subscription, counted with the WebSocket ones.
 */
export const SUBSCRIPTIONS = {
  connections: 1_000,
  perConnection: 10,
  perClient: 200,
  keepAliveMs: 12_000,
  messageBytes: 64 * 1024,
  /**
   * Connections one caller may hold open in one process (a client by its token, a caller without
   * one by its address): a dashboard fleet's worth, a tenth of `connections`, so one client holding
   * its maximum leaves room for nine others.
   */
  connectionsPerCaller: 100,
  /**
   * Sockets awaiting `connection_init`, in one process and from one address. They are not callers
   * yet (the token comes with `connection_init`), so they never count against `connections`: a
   * flood of sockets that never say who they are fills only these, and a client with a token still
   * connects. A browser sends `connection_init` as soon as the socket opens, so a page needs one
   * or two at a time; 8 per address leaves room for a small office behind one address.
   */
  awaitingInit: 200,
  awaitingInitPerAddress: 8,
  /**
   * How long a socket may wait before its `connection_init` (graphql-ws's default is 3 s): the
   * client sends it in its first round trip, and every second of waiting is a second of a place of
   * `awaitingInit` held by a socket that may never speak.
   */
  initWaitMs: 2_000,
} as const;

/**
 * The longest subscription cursor (`after:`) accepted before it is decoded: mongod's resume tokens
 * are about 100 bytes as a cursor, the stand-in's fewer; a longer one is no cursor of this API.
 */
export const MAX_CURSOR_LENGTH = 1_000;

/**
 * Events one subscriber of a shared change stream may have waiting (src/database/change-feed.ts):
 * 10 s of a busy `userCreated` (100 users a second), a few hundred kilobytes of references to events
 * all subscribers share. Past it the slow subscriber's feed ends with SUBSCRIBER_BEHIND and the
 * others go on.
 */
export const MAX_QUEUED = 1_000;

/** Ids one `nodes(ids:)` may name: a page's worth, as every list is bounded. */
export const NODES_PER_LIST = PAGE_SIZE.max;

/** Operations in one batched (array) request: each runs concurrently with the others. */
export const BATCHED_OPERATIONS = 10;

/**
 * What one GraphQL document may ask for (graphql-armor, and graphql-js's parser for tokens).
 * armor's cost grows by 1.5x per level of depth, not by list size: a page of users with every
 * field and two levels of inviters costs about 11,600, three levels about 18,800. The cost limit
 * lets the first through and refuses the second (each level is one batched lookup, so two is
 * plenty); page sizes are bounded by `LISTED_ITEMS_PER_REQUEST` instead.
 */
export const DOCUMENT = {
  depth: 10,
  cost: 15_000,
  aliases: 15,
  directives: 10,
  /** The largest legitimate operation (every field of a user, two levels deep) is about 300. */
  tokens: 2_000,
} as const;

/** The default of BODY_LIMIT: a full `createUsers` batch of 1,000 with every field set fits. */
export const DEFAULT_BODY_LIMIT = '1mb';

/**
 * What the variables of one operation may hold, checked on the parsed JSON before graphql-js
 * coerces them (src/http/input-bounds.ts). Why: graphql-js coerces variables synchronously and
 * prints the whole offending value into each of up to 51 errors, so a 1 MB `$input` of 70,000
 * unknown keys held the event loop for 21 s and answered 51 MB. test/limits.test.ts checks each
 * number against what the schema needs.
 */
export const INPUT = {
  /** Keys of one input object: the widest input type (CreateSequenceInput) has 7 fields. */
  keysPerObject: 16,
  /** Items of one list: the longest list argument is `createUsers(inputs:)`. */
  itemsPerList: USERS_PER_BATCH,
  /** Lists and objects inside one another: `inputs` (a list of objects) nests 2 deep. */
  depth: 4,
  /**
   * UTF-16 units of one string: the longest a field accepts is an email of 254 characters; names
   * (100 characters, trimmed) and keys (128) leave room for the spaces trimming removes.
   */
  stringLength: 4_096,
  /** Values in all: a full `createUsers` batch with every field set holds 5,001. */
  values: 6_000,
} as const;

/**
 * What the errors of one answer may say. graphql-js echoes the offending input in its variable and
 * validation errors (up to 51 of them); the answer stays small whatever the input held.
 */
export const ERRORS = {
  /** Errors in one answer; those beyond are counted in the last one. */
  perResponse: 20,
  /** Characters of one error message; a longer one is cut and says so. */
  messageLength: 500,
} as const;

/** What a field asks for, for the per-request bounds above (src/graphql/request-bounds.ts). */
export type FieldLimit =
  /** Creates users: one, or one per item of the list argument named. */
  | { createsUsers: 1 | { perItemOf: string } }
  /** Consumes values of a sequence: one allocation. */
  | { allocates: true }
  /**
   * Answers a page of a connection (`first` or `last` items, else `PAGE_SIZE.default`), or a list
   * of one item per item of the list argument named (`nodes(ids:)`).
   */
  | {
      lists: 'page' | { perItemOf: string };
      /** Stored values it may read to find its page, against SCANNED_VALUES_PER_REQUEST. */
      scans?: number;
    }
  /** Creates, allocates and lists nothing beyond one object; the reason is the string. */
  | { bounded: string };

/**
 * Every mutation, and every field answering a connection, with what it asks for (the schema test
 * keeps this complete: a field missing here fails it).
 */
export const FIELD_LIMITS: Readonly<Record<string, Readonly<Record<string, FieldLimit>>>> = {
  Query: {
    users: { lists: 'page' },
    // One node per id, each of which may select pages of its own (a user's invitees).
    nodes: { lists: { perItemOf: 'ids' } },
    sequences: { lists: 'page' },
  },
  Mutation: {
    createUser: { createsUsers: 1 },
    createUsers: { createsUsers: { perItemOf: 'inputs' } },
    importUsers: { createsUsers: { perItemOf: 'inputs' } },
    updateUser: { bounded: 'changes one existing user' },
    deleteUser: { bounded: 'deletes one existing user' },
    createSequence: { bounded: 'defines one counter and consumes no value' },
    allocateSequence: { allocates: true },
    confirmReservation: { bounded: 'settles one held value of one counter' },
    releaseReservation: { bounded: 'settles one held value of one counter' },
    confirmReservations: {
      bounded: 'settles at most RESERVATIONS_PER_REQUEST held values, refused whole beyond',
    },
    releaseReservations: {
      bounded: 'settles at most RESERVATIONS_PER_REQUEST held values, refused whole beyond',
    },
    setSequence: { bounded: 'admin only; moves one counter' },
    advanceSequence: { bounded: 'moves one counter forward' },
    setSequenceFormat: { bounded: 'admin only; adds one format to one counter' },
  },
  User: {
    invitees: { lists: 'page' },
  },
  Sequence: {
    gaps: { lists: 'page', scans: GAPS.idsScanned },
    pastPeriods: { lists: 'page' },
  },
};

/** The caller budgets of src/budgets: what one caller may do over time, shared by every instance. */
export type BudgetName =
  | 'usersCreated'
  | 'sequenceValues'
  | 'gaplessHeld'
  | 'subscriptionConnections'
  | 'subscriptions'
  | 'gapsScans';

/** How a budget is counted: what one unit is, shown in docs and `viewer { limits { budgets } }`. */
export const BUDGET_UNITS: Readonly<Record<BudgetName, string>> = {
  usersCreated: 'users a request asks to create (`createUser` 1, `createUsers` its inputs)',
  sequenceValues: 'values `allocateSequence` consumes (its `count`)',
  gaplessHeld: 'values `allocateSequence` holds on a gapless sequence (its `count`)',
  subscriptionConnections: 'WebSocket connections accepted (`connection_init`)',
  subscriptions: 'subscriptions started',
  gapsScans: '`Sequence.gaps` reads (each scans up to GAPS.idsScanned stored ids)',
};

/** One budget of one kind of caller: `points` units per window of `seconds`; null: unlimited. */
export type BudgetWindow = { points: number; seconds: number } | null;

/** Who a budget is counted for: a caller without a token by address, a client by its token. */
export type BudgetRole = 'anonymous' | 'client' | 'admin';

/**
 * What one caller may do over time (src/budgets), counted in the service's own database so every
 * instance draws on the same budget; overridable with `BUDGETS` (src/config.ts). A caller without
 * a token is counted by its address (`TRUST_PROXY` says which), a client by its token, the admin
 * is unlimited (an operator's own token; `BUDGETS` may limit it).
 *
 * Reasons, by caller:
 * - anonymous, `usersCreated` 30 per 10 minutes: a sign-up page creates one user per person, and a
 *   household, an office or a carrier's shared address (CGNAT) signs up a handful of people at a
 *   time; 30 lets one through every 20 s sustained and stops a script after 30 ids. Only
 *   `createUser` is open to anonymous callers in production, so it is their only budget that
 *   bites; the others are 0 (those fields refuse them by role first).
 * - client, `usersCreated` 1,000,000 per hour: a back end importing or signing up at scale (a full
 *   `createUsers` batch every 4 s, sustained); the budget stops a leaked token or a runaway loop
 *   from burning ids without end, not honest work.
 * - client, `sequenceValues` 10,000,000 per hour: a thousand full allocations (VALUES_PER_ALLOCATION)
 *   an hour; a counter's values are cheap, a loop that burns them is not.
 * - client, `gaplessHeld` 100,000 per hour: each held value is a document of its own until it is
 *   confirmed or released (src/sequences/reservations.ts); 100,000 an hour is 28 a second, held
 *   for a minute each, and the budget stops a loop that holds values and never settles them.
 * - client, `subscriptionConnections` 600 per 10 minutes and `subscriptions` 6,000 per 10
 *   minutes: a fleet reconnecting after a deploy opens its connections again; a loop opening them
 *   without end holds change streams and sockets.
 * - client, `gapsScans` 600 per 10 minutes: one scan reads up to GAPS.idsScanned stored ids; an
 *   audit pages through a large table a page a second, a loop of full scans starves writers.
 */
export const BUDGETS: Readonly<Record<BudgetName, Readonly<Record<BudgetRole, BudgetWindow>>>> = {
  usersCreated: {
    anonymous: { points: 30, seconds: 600 },
    client: { points: 1_000_000, seconds: 3_600 },
    admin: null,
  },
  sequenceValues: {
    anonymous: { points: 0, seconds: 600 },
    client: { points: 10_000_000, seconds: 3_600 },
    admin: null,
  },
  gaplessHeld: {
    anonymous: { points: 0, seconds: 600 },
    client: { points: 100_000, seconds: 3_600 },
    admin: null,
  },
  subscriptionConnections: {
    anonymous: { points: 0, seconds: 600 },
    client: { points: 600, seconds: 600 },
    admin: null,
  },
  subscriptions: {
    anonymous: { points: 0, seconds: 600 },
    client: { points: 6_000, seconds: 600 },
    admin: null,
  },
  gapsScans: {
    anonymous: { points: 0, seconds: 600 },
    client: { points: 600, seconds: 600 },
    admin: null,
  },
};

/**
 * How a process draws on a shared budget (src/budgets/leases.ts): it takes a lease of units from
 * the database at once and spends it locally, so most charges cost no database round trip. A lease
 * is a twentieth of the budget (at least one unit): what other instances cannot spend while one
 * holds it, at most a twentieth per instance. Leases and the in-process fallback are kept for at
 * most `callersKept` callers (the least recently charged are forgotten first; a forgotten lease is
 * spent, never given back twice).
 */
export const BUDGET_LEASES = {
  fraction: 20,
  callersKept: 10_000,
} as const;
