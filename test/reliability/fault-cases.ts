/**
 * The fault table's rows (fault-table.test.ts runs them): one `failCommand` fault per row, the
 * creation it hits, and the answers its first attempt may end in. Database conditions that mean
 * "not now" have a row each, so the service's one transient predicate (src/database/transient.ts)
 * is held to every one: stepped-down or non-writable primaries, shutdowns, time limits, conflicts,
 * and a disk that cannot take writes (OutOfDiskSpace; a failing or read-only journal answers
 * NotWritablePrimary).
 */
import type { CreationOperation, Strategy } from './client';
import type { FailCommandData, FailPointMode } from './fail-points';
/** How long a blocked connection stalls: well past the service's timeout. */
const BLOCK_MS = 5_000;
/** Inputs of each createUsers case. */
export const BATCH_SIZE = 5;
/** More than the driver's default pool of 100 connections, so requests wait for one. */
const POOL_EXHAUSTING_REQUESTS = 110;
/** A stall shorter than the service's connect and socket timeouts: slow, but it completes. */
const STALL_MS = 1_000;
/**
 * Single createUser requests sent at once to a strategy that groups creations
 * (`groupsCreations`): the ones that wait share the next insert, so the fault hits a group.
 */
export const GROUPED_REQUESTS = 20;

const UNAVAILABLE = ['SERVICE_UNAVAILABLE'];

export interface FaultCase {
  name: string;
  operation: CreationOperation;
  strategy: Strategy;
  mode: FailPointMode;
  fault: FailCommandData;
  /** Error codes the first attempt may end in; empty: it must succeed. */
  allowedCodes: string[];
  /** The driver retries this fault once by itself when the server supports retryable writes. */
  retriedByDriver?: boolean;
  /** Send this many single createUser requests at once instead of one request. */
  concurrency?: number;
}

const once: FailPointMode = { times: 1 };
const closed = (command: string): FailCommandData => ({
  failCommands: [command],
  closeConnection: true,
});
const failing = (command: string, errorCode: number, labelled: boolean): FailCommandData => ({
  failCommands: [command],
  errorCode,
  ...(labelled ? { errorLabels: ['RetryableWriteError'] } : {}),
});
const writeConcernFailed = (command: string): FailCommandData => ({
  failCommands: [command],
  writeConcernError: {
    code: 64,
    codeName: 'WriteConcernFailed',
    errmsg: 'waiting for replication timed out',
  },
});
const shutdownWriteConcern = (command: string): FailCommandData => ({
  failCommands: [command],
  errorLabels: ['RetryableWriteError'],
  writeConcernError: {
    code: 91,
    codeName: 'ShutdownInProgress',
    errmsg: 'Replication is being shut down',
  },
});
const blocked = (commands: string[], blockTimeMS = BLOCK_MS): FailCommandData => ({
  failCommands: commands,
  blockConnection: true,
  blockTimeMS,
});
const COUNTER_UPDATE = 'findAndModify';

export const cases: FaultCase[] = [
  // COUNTER: the tutorial's findAndModify, then the insert.
  {
    name: 'COUNTER: connection closed on the counter findAndModify',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: closed(COUNTER_UPDATE),
    allowedCodes: UNAVAILABLE,
    retriedByDriver: true,
  },
  {
    name: 'COUNTER: connection closed on the counter findAndModify, three times running',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: { times: 3 },
    fault: closed(COUNTER_UPDATE),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: connection closed on the user insert after the counter moved',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: closed('insert'),
    allowedCodes: UNAVAILABLE,
    retriedByDriver: true,
  },
  {
    name: 'COUNTER: E11000 from the counter upsert once (the upsert race) is retried',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing(COUNTER_UPDATE, 11000, false),
    allowedCodes: [],
  },
  {
    name: 'COUNTER: E11000 from every counter upsert ends in a clear error',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: 'alwaysOn',
    fault: failing(COUNTER_UPDATE, 11000, false),
    allowedCodes: ['SERVICE_UNAVAILABLE', 'ID_CONTENTION'],
  },
  {
    name: 'COUNTER: write concern WriteConcernFailed (64) on the counter findAndModify',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: writeConcernFailed(COUNTER_UPDATE),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: write concern WriteConcernFailed (64) on the user insert',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: writeConcernFailed('insert'),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: write concern ShutdownInProgress (91, RetryableWriteError) on the user insert',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: shutdownWriteConcern('insert'),
    allowedCodes: UNAVAILABLE,
    retriedByDriver: true,
  },
  {
    name: 'COUNTER: ShutdownInProgress (91) with RetryableWriteError on the counter findAndModify',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing(COUNTER_UPDATE, 91, true),
    allowedCodes: UNAVAILABLE,
    retriedByDriver: true,
  },
  {
    name: 'COUNTER: ShutdownInProgress (91) without a label on the counter findAndModify',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing(COUNTER_UPDATE, 91, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: PrimarySteppedDown (189) with RetryableWriteError on the user insert',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing('insert', 189, true),
    allowedCodes: UNAVAILABLE,
    retriedByDriver: true,
  },
  {
    name: 'COUNTER: PrimarySteppedDown (189) without a label on the user insert',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing('insert', 189, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: NotWritablePrimary (10107) with RetryableWriteError on the counter findAndModify',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing(COUNTER_UPDATE, 10107, true),
    allowedCodes: UNAVAILABLE,
    retriedByDriver: true,
  },
  {
    name: 'COUNTER: NotWritablePrimary (10107) without a label on the user insert',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing('insert', 10107, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: counter findAndModify blocked past the timeout',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: blocked([COUNTER_UPDATE]),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: user insert blocked past the timeout (the response never arrives, the write lands late)',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: blocked(['insert']),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: 110 concurrent requests while handshakes and counter updates each stall (the connection pool runs dry)',
    operation: 'createUser',
    strategy: 'COUNTER',
    concurrency: POOL_EXHAUSTING_REQUESTS,
    mode: 'alwaysOn',
    // Connections are busy for a second each and new ones take a second to open (two at a time):
    // most requests wait for a connection longer than the service's wait-queue timeout.
    fault: blocked(['hello', 'isMaster', 'ismaster', COUNTER_UPDATE], STALL_MS),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: LockTimeout (24) on the counter findAndModify',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing(COUNTER_UPDATE, 24, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: WriteConflict (112) on the user insert',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing('insert', 112, false),
    allowedCodes: UNAVAILABLE,
  },
  // OPTIMISTIC_LOOP: read the max _id, insert max + 1.
  {
    name: 'OPTIMISTIC_LOOP: connection closed on the reads before the insert',
    operation: 'createUser',
    strategy: 'OPTIMISTIC_LOOP',
    mode: once,
    fault: { failCommands: ['find', 'aggregate'], closeConnection: true },
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'OPTIMISTIC_LOOP: connection closed on the insert',
    operation: 'createUser',
    strategy: 'OPTIMISTIC_LOOP',
    mode: once,
    fault: closed('insert'),
    allowedCodes: UNAVAILABLE,
    retriedByDriver: true,
  },
  {
    name: 'OPTIMISTIC_LOOP: E11000 injected on the insert twice',
    operation: 'createUser',
    strategy: 'OPTIMISTIC_LOOP',
    mode: { times: 2 },
    fault: failing('insert', 11000, false),
    allowedCodes: ['ID_CONTENTION', 'SERVICE_UNAVAILABLE'],
  },
  {
    name: 'OPTIMISTIC_LOOP: write concern WriteConcernFailed (64) on the insert',
    operation: 'createUser',
    strategy: 'OPTIMISTIC_LOOP',
    mode: once,
    fault: writeConcernFailed('insert'),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'OPTIMISTIC_LOOP: ShutdownInProgress (91) without a label on the insert',
    operation: 'createUser',
    strategy: 'OPTIMISTIC_LOOP',
    mode: once,
    fault: failing('insert', 91, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'OPTIMISTIC_LOOP: insert blocked past the timeout',
    operation: 'createUser',
    strategy: 'OPTIMISTIC_LOOP',
    mode: once,
    fault: blocked(['insert']),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'OPTIMISTIC_LOOP: FailedToSatisfyReadPreference (133) on the reads before the insert',
    operation: 'createUser',
    strategy: 'OPTIMISTIC_LOOP',
    mode: once,
    fault: { failCommands: ['find', 'aggregate'], errorCode: 133 },
    allowedCodes: UNAVAILABLE,
  },
  // BLOCK: one findAndModify refills the process's block, then the insert.
  {
    name: 'BLOCK: connection closed on the block refill',
    operation: 'createUser',
    strategy: 'BLOCK',
    mode: once,
    fault: closed(COUNTER_UPDATE),
    allowedCodes: UNAVAILABLE,
    retriedByDriver: true,
  },
  {
    name: 'BLOCK: E11000 from the block refill upsert once is retried',
    operation: 'createUser',
    strategy: 'BLOCK',
    mode: once,
    fault: failing(COUNTER_UPDATE, 11000, false),
    allowedCodes: [],
  },
  {
    name: 'BLOCK: write concern WriteConcernFailed (64) on the block refill',
    operation: 'createUser',
    strategy: 'BLOCK',
    mode: once,
    fault: writeConcernFailed(COUNTER_UPDATE),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'BLOCK: PrimarySteppedDown (189) without a label on the insert',
    operation: 'createUser',
    strategy: 'BLOCK',
    mode: once,
    fault: failing('insert', 189, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'BLOCK: block refill blocked past the timeout, then a new refill serves the retry',
    operation: 'createUser',
    strategy: 'BLOCK',
    mode: once,
    fault: blocked([COUNTER_UPDATE]),
    allowedCodes: UNAVAILABLE,
  },
  // BLOCK groups concurrent creations: the ones that waited share one insert.
  {
    name: 'BLOCK: 20 concurrent creations, connection closed on a shared insert',
    operation: 'createUser',
    strategy: 'BLOCK',
    concurrency: GROUPED_REQUESTS,
    mode: once,
    fault: closed('insert'),
    allowedCodes: UNAVAILABLE,
    retriedByDriver: true,
  },
  {
    name: 'BLOCK: 20 concurrent creations, write concern WriteConcernFailed (64) on a shared insert',
    operation: 'createUser',
    strategy: 'BLOCK',
    concurrency: GROUPED_REQUESTS,
    mode: once,
    fault: writeConcernFailed('insert'),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'BLOCK: 20 concurrent creations, E11000 naming no index on a shared insert: each goes again alone',
    operation: 'createUser',
    strategy: 'BLOCK',
    concurrency: GROUPED_REQUESTS,
    mode: once,
    fault: failing('insert', 11000, false),
    allowedCodes: [],
  },
  {
    name: 'BLOCK: 20 concurrent creations, a shared insert blocked past the timeout',
    operation: 'createUser',
    strategy: 'BLOCK',
    concurrency: GROUPED_REQUESTS,
    mode: once,
    fault: blocked(['insert']),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'BLOCK: ReadConcernMajorityNotAvailableYet (134) on the block refill',
    operation: 'createUser',
    strategy: 'BLOCK',
    mode: once,
    fault: failing(COUNTER_UPDATE, 134, false),
    allowedCodes: UNAVAILABLE,
  },
  // createUsers: one $inc (or max read) and one unordered insertMany for the whole batch.
  {
    name: 'createUsers COUNTER: connection closed on the insertMany',
    operation: 'createUsers',
    strategy: 'COUNTER',
    mode: once,
    fault: closed('insert'),
    allowedCodes: UNAVAILABLE,
    retriedByDriver: true,
  },
  {
    name: 'createUsers COUNTER: write concern WriteConcernFailed (64) on the insertMany',
    operation: 'createUsers',
    strategy: 'COUNTER',
    mode: once,
    fault: writeConcernFailed('insert'),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'createUsers COUNTER: ShutdownInProgress (91) with RetryableWriteError on the $inc',
    operation: 'createUsers',
    strategy: 'COUNTER',
    mode: once,
    fault: failing(COUNTER_UPDATE, 91, true),
    allowedCodes: UNAVAILABLE,
    retriedByDriver: true,
  },
  {
    name: 'createUsers BLOCK: E11000 from the block refill upsert once is retried',
    operation: 'createUsers',
    strategy: 'BLOCK',
    mode: once,
    fault: failing(COUNTER_UPDATE, 11000, false),
    allowedCodes: [],
  },
  {
    name: 'createUsers BLOCK: insertMany blocked past the timeout',
    operation: 'createUsers',
    strategy: 'BLOCK',
    mode: once,
    fault: blocked(['insert']),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'createUsers COUNTER: NetworkInterfaceExceededTimeLimit (202) on the insertMany',
    operation: 'createUsers',
    strategy: 'COUNTER',
    mode: once,
    fault: failing('insert', 202, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'createUsers OPTIMISTIC_LOOP: connection closed on the insertMany',
    operation: 'createUsers',
    strategy: 'OPTIMISTIC_LOOP',
    mode: once,
    fault: closed('insert'),
    allowedCodes: UNAVAILABLE,
  },
  // A database that cannot write: a full disk, a failing or read-only journal, a stepped-down
  // primary. Each is refused before anything is acknowledged; retried, the request succeeds.
  {
    name: 'COUNTER: OutOfDiskSpace (14031, a full disk) on the user insert',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing('insert', 14031, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'createUsers COUNTER: OutOfDiskSpace (14031, a full disk) on the $inc',
    operation: 'createUsers',
    strategy: 'COUNTER',
    mode: once,
    fault: failing(COUNTER_UPDATE, 14031, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'BLOCK: OutOfDiskSpace (14031, a full disk) on the block refill',
    operation: 'createUser',
    strategy: 'BLOCK',
    mode: once,
    fault: failing(COUNTER_UPDATE, 14031, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'createUsers OPTIMISTIC_LOOP: OutOfDiskSpace (14031, a full disk) on the insertMany',
    operation: 'createUsers',
    strategy: 'OPTIMISTIC_LOOP',
    mode: once,
    fault: failing('insert', 14031, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'createUsers COUNTER: NotWritablePrimary (10107, a failing or read-only journal) on the insertMany',
    operation: 'createUsers',
    strategy: 'COUNTER',
    mode: once,
    fault: failing('insert', 10107, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: NotPrimaryNoSecondaryOk (13435) on the counter findAndModify',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing(COUNTER_UPDATE, 13435, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'COUNTER: InterruptedDueToReplStateChange (11602) on the user insert',
    operation: 'createUser',
    strategy: 'COUNTER',
    mode: once,
    fault: failing('insert', 11602, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'createUsers OPTIMISTIC_LOOP: NotWritablePrimary (10107) without a label on the insertMany',
    operation: 'createUsers',
    strategy: 'OPTIMISTIC_LOOP',
    mode: once,
    fault: failing('insert', 10107, false),
    allowedCodes: UNAVAILABLE,
  },
  // TRANSACTION: the `$inc`, the insert and the commit in one transaction; a transient fault runs
  // it again (bounded), an unknown commit result sends the commit again.
  {
    name: 'TRANSACTION: connection closed on the counter findAndModify inside the transaction',
    operation: 'createUser',
    strategy: 'TRANSACTION',
    mode: once,
    fault: closed(COUNTER_UPDATE),
    allowedCodes: [],
  },
  {
    name: 'TRANSACTION: WriteConflict (112) on the user insert runs the transaction again',
    operation: 'createUser',
    strategy: 'TRANSACTION',
    mode: { times: 2 },
    fault: failing('insert', 112, false),
    allowedCodes: [],
  },
  {
    name: 'TRANSACTION: connection closed on commitTransaction: the commit is sent again',
    operation: 'createUser',
    strategy: 'TRANSACTION',
    mode: once,
    fault: closed('commitTransaction'),
    allowedCodes: [],
  },
  {
    name: "TRANSACTION: 20 concurrent creations, WriteConflict (112) on a group transaction's insert runs it again",
    operation: 'createUser',
    strategy: 'TRANSACTION',
    concurrency: GROUPED_REQUESTS,
    mode: once,
    fault: failing('insert', 112, false),
    allowedCodes: [],
  },
  {
    name: 'TRANSACTION: OutOfDiskSpace (14031) on the user insert',
    operation: 'createUser',
    strategy: 'TRANSACTION',
    mode: once,
    fault: failing('insert', 14031, false),
    allowedCodes: UNAVAILABLE,
  },
  {
    name: 'createUsers TRANSACTION: ShutdownInProgress (91) on commitTransaction, twice',
    operation: 'createUsers',
    strategy: 'TRANSACTION',
    mode: { times: 2 },
    fault: failing('commitTransaction', 91, false),
    allowedCodes: [],
  },
  {
    name: 'createUsers TRANSACTION: insertMany blocked past the timeout',
    operation: 'createUsers',
    strategy: 'TRANSACTION',
    mode: once,
    fault: blocked(['insert']),
    allowedCodes: UNAVAILABLE,
  },
];
