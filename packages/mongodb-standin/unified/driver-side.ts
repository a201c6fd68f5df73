/**
 * Where driver 7.9 sends something other than the spec's expected command events, in a way the
 * Node driver's own unified runner (node-mongodb-native test/tools/unified-spec-runner) does not
 * flag. A test that differs only by these is counted `driver-side`: neither a pass of the server
 * nor wrong. Each entry is narrow: it names the command, the field and the exact value the driver
 * adds, and the rest of the command is still matched as the format says.
 *
 * - `wtimeout: 10000` in commitTransaction's and abortTransaction's writeConcern where the test
 *   expects a writeConcern without it. Driver 7.9 (lib/sessions.js, commitTransaction and
 *   abortTransaction) applies `{ wtimeoutMS: 10000, w: 'majority', ...wc }` whenever the
 *   transaction has a write concern, also on the first commit, where the transactions spec adds
 *   it only to a retried commit. The server does not choose what the driver sends, so a real
 *   mongod gets the same verdict. The Node runner matches nested documents with extra keys
 *   allowed (match.ts `resultCheck`, checkExtraKeys false), so it never sees the field.
 * - `{ _id: { $eq: id } }` in the `find` on `<bucket>.files` of a GridFS download by id, where the
 *   spec expects `{ _id: id }` (the same query). The Node runner compares an expected ObjectId by
 *   its enumerable keys, of which it has none, so it never sees the difference.
 * - `insertedIds` naming inserts that never ran, in a bulk write's result or error whose
 *   `insertedCount` is 0 where the test expects no ids (retryable-writes' "First insertOne is
 *   never committed"): driver 7.9 fills insertedIds from the requests it sent, not from what the
 *   server reports. The Node runner allows the extra keys there too.
 * - A sensitive command's failure logged as `(redacted)` where the test expects it unredacted (a
 *   network error in response to `authenticate`): driver 7.9 redacts every failure of a sensitive
 *   command (its CommandFailedEvent's failure is `{}`, and lib/mongo_logger.js logs
 *   `failure?.message ?? '(redacted)'`). The Node runner checks only that the failure is not `{}`.
 * - The tests the Node runner skips as driver gaps, with its own reasons (NODE_RUNNER_SKIPS, keyed
 *   by the test's description, or `<file description> :: <test description>` where a name is
 *   shared): a failure of one of them is counted driver-side with that reason and the mismatch
 *   itself.
 */
import { Document } from 'mongodb';

const DRIVER_WTIMEOUT_MS = 10_000;

/** How driver 7.9 logs a failure it redacted. */
export const REDACTED_FAILURE = '(redacted)';
export const DRIVER_REDACTS_EVERY_FAILURE =
  "driver 7.9 logged a sensitive command's network error as (redacted)";
const TRANSACTION_ENDS = new Set(['commitTransaction', 'abortTransaction']);

function isDocument(value: unknown): value is Document {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The command to match against `expected`, without what the driver added on its own, and what
 * was taken out (empty when nothing was).
 */
export function withoutDriverAdditions(
  commandName: string,
  expected: Document,
  command: Document,
): { command: Document; removed: string[] } {
  const removed: string[] = [];
  let matched = command;
  for (const rule of [withoutCommitWtimeout, withoutGridFsIdEq]) {
    const taken = rule(commandName, expected, matched);
    if (taken) {
      matched = taken.command;
      removed.push(taken.removed);
    }
  }
  return { command: matched, removed };
}

type Rule = (
  commandName: string,
  expected: Document,
  command: Document,
) => { command: Document; removed: string } | null;

const withoutCommitWtimeout: Rule = (commandName, expected, command) => {
  const wanted = expected.writeConcern;
  const sent = command.writeConcern;
  const expectsPlainConcern =
    isDocument(wanted) && !Object.keys(wanted).some((key) => key.startsWith('$$'));
  if (
    !TRANSACTION_ENDS.has(commandName) ||
    !expectsPlainConcern ||
    'wtimeout' in wanted ||
    !isDocument(sent) ||
    Number(sent.wtimeout) !== DRIVER_WTIMEOUT_MS
  )
    return null;
  const { wtimeout: _added, ...concern } = sent;
  return {
    command: { ...command, writeConcern: concern },
    removed: `driver 7.9 added writeConcern.wtimeout: 10000 to ${commandName}`,
  };
};

const withoutGridFsIdEq: Rule = (commandName, expected, command) => {
  const wantedId = isDocument(expected.filter) ? expected.filter._id : undefined;
  const sent = command.filter;
  if (
    commandName !== 'find' ||
    !String(command.find).endsWith('.files') ||
    wantedId === undefined ||
    (isDocument(wantedId) && Object.keys(wantedId).some((key) => key.startsWith('$'))) ||
    !isDocument(sent) ||
    !isDocument(sent._id) ||
    Object.keys(sent._id).join() !== '$eq'
  )
    return null;
  return {
    command: { ...command, filter: { ...sent, _id: sent._id.$eq } },
    removed: 'driver 7.9 wrapped the GridFS file id in $eq',
  };
};

/**
 * A bulk write's result shape without insertedIds the driver listed for inserts that never ran
 * (insertedCount 0, the test expects none), and what was taken out.
 */
export function withoutUnrunInsertIds(
  expected: unknown,
  result: unknown,
): { result: unknown; removed: string[] } {
  if (!isDocument(expected) || !isDocument(result)) return { result, removed: [] };
  const wanted = expected.insertedIds;
  const none =
    isDocument(wanted) &&
    (Object.keys(wanted).length === 0 ||
      (isDocument(wanted.$$unsetOrMatches) && Object.keys(wanted.$$unsetOrMatches).length === 0));
  const listed = result.insertedIds;
  if (!none || Number(result.insertedCount) !== 0 || !isDocument(listed))
    return { result, removed: [] };
  if (Object.keys(listed).length === 0) return { result, removed: [] };
  return {
    result: { ...result, insertedIds: {} },
    removed: ['driver 7.9 listed insertedIds of inserts that never ran (insertedCount 0)'],
  };
}

/**
 * Tests node-mongodb-native's own unified runner skips as driver gaps (test/integration/crud/
 * crud.spec.test.ts, `unimplementedCrudTests`), by description, with its reasons.
 */
export const NODE_RUNNER_SKIPS: Readonly<Record<string, string>> = {
  'inserting _id with type null via insertOne':
    'NODE-6468: driver 7.9 replaces a null _id with an ObjectId (DRIVERS-2124)',
  'inserting _id with type null via insertMany':
    'NODE-6468: driver 7.9 replaces a null _id with an ObjectId (DRIVERS-2124)',
  'inserting _id with type null via bulkWrite':
    'NODE-6468: driver 7.9 replaces a null _id with an ObjectId (DRIVERS-2124)',
  'InsertMany passes bypassDocumentValidation: false':
    'NODE-6484: driver 7.9 leaves out bypassDocumentValidation: false (DRIVERS-2865)',
  'FindOneAndUpdate passes bypassDocumentValidation: false':
    'NODE-6484: driver 7.9 leaves out bypassDocumentValidation: false (DRIVERS-2865)',
  'FindOneAndReplace passes bypassDocumentValidation: false':
    'NODE-6484: driver 7.9 leaves out bypassDocumentValidation: false (DRIVERS-2865)',
  'BulkWrite passes bypassDocumentValidation: false':
    'NODE-6484: driver 7.9 leaves out bypassDocumentValidation: false (DRIVERS-2865)',
  'MapReduce omits default write concern': 'The node driver does not implement mapReduce.',
  'Successful bulk write command log messages include operationIds':
    'not applicable: driver 7.9 logs no operationId (the Node runner skips it)',
  'Failed bulk write command log message includes operationId':
    'not applicable: driver 7.9 logs no operationId (the Node runner skips it)',
  // The Node runner skips every test named "Topology lifecycle"; only these files' fail for it.
  'standalone-emit-topology-description-changed-before-close :: Topology lifecycle':
    'NODE-5723: driver 7.9 emits no topologyDescriptionChangedEvent to Unknown before topologyClosedEvent (DRIVERS-2711)',
  'standalone-logging :: Topology lifecycle':
    'NODE-5723: driver 7.9 logs no topology change to Unknown before it stops monitoring (DRIVERS-2711)',
  'waitQueueSize should be included in connection pool created message when specified':
    'not applicable: driver 7.9 has no waitQueueSize option (the Node runner skips it)',
  'waitQueueMultiple should be included in connection pool created message when specified':
    'not applicable: driver 7.9 has no waitQueueMultiple option (the Node runner skips it)',
  'connect with serverMonitoringMode=stream >=4.4':
    'NODE-6045: driver 7.9 reports the first heartbeat of a streaming monitor as awaited',
  'connect with serverMonitoringMode=auto >=4.4':
    'NODE-6045: driver 7.9 reports the first heartbeat of a streaming monitor as awaited',
  'delete when multiple revisions of the file exist':
    'TODO(NODE-6511): Implement rename GridFS functionality',
  'delete when file name does not exist': 'TODO(NODE-6511): Implement rename GridFS functionality',
  'rename when multiple revisions of the file exist':
    'TODO(NODE-6511): Implement rename GridFS functionality',
  'rename when file name does not exist': 'TODO(NODE-6511): Implement rename GridFS functionality',
  'download when final chunk is missing': 'TODO(NODE-xxxx): driver 7.9 does not notice it',
  'MapReduce succeeds with retry on': 'The Node.js Driver does not support mapReduce',
  'MapReduce fails with retry on': 'The Node.js Driver does not support mapReduce',
  'MapReduce fails with retry off': 'The Node.js Driver does not support mapReduce',
};
