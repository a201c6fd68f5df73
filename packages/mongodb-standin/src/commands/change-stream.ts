/**
 * `aggregate` with `$changeStream` first, on a collection, a database (`aggregate: 1`) or the
 * whole cluster (`aggregate: 1` on admin with `allChangesForCluster: true`), and the getMores of
 * its cursor. A standalone refuses it (40573), as mongod does. What a stream reads and from where: state/change-stream.ts; event shapes and
 * tokens: engine/change-events.ts.
 *
 * Options: fullDocument (default, updateLookup, whenAvailable, required), fullDocumentBeforeChange
 * (off, whenAvailable, required; images exist only for writes made while the collection had
 * changeStreamPreAndPostImages enabled), resumeAfter, startAfter, startAtOperationTime.
 * showExpandedEvents: true is refused (BadValue) rather than answered without its events. The
 * stages after `$changeStream` may be those mongod allows there that the stand-in runs ($match,
 * $project, $addFields/$set, $unset, $replaceRoot/$replaceWith); another known stage is
 * IllegalOperation (20), an unknown name 40324, as in mongod.
 *
 * A getMore returns what the stream has at once; with nothing, it waits (up to its maxTimeMS,
 * 1 second when absent, as mongod's awaitData) for the history to wake it, without holding the
 * server: other connections run meanwhile. A getMore that fails closes the stream's cursor, as
 * mongod does; failed by the failGetMoreAfterCursorCheckout fail point (get-more.ts), it carries
 * the ResumableChangeStreamError label for the codes mongod gives it to.
 */
import { Long, Timestamp } from 'bson';
import { CommandContext, optionalNumber } from './context';
import { parseResumeToken } from '../engine/change-events';
import {
  badValue,
  CommandError,
  ErrorCode,
  LocationCode,
  RETRIABLE_CODES,
  unsupported,
} from '../engine/errors';
import { Variables } from '../engine/expressions';
import { isMongodStage, unknownOrUnsupportedStage } from '../engine/stage-names';
import { Document, isNumeric, isPlainDocument, numberOf } from '../engine/values';
import { ChangeStream, StartOption } from '../state/change-stream';

const AWAIT_DATA_DEFAULT_MS = 1000;
/**
 * codes after which a driver may resume a change stream, labelled ResumableChangeStreamError:
 * mongod's RetriableError category and the sharding and read-preference errors a stream survives
 */
const RESUMABLE_CODES: ReadonlySet<number> = new Set<number>([
  ...RETRIABLE_CODES,
  ErrorCode.StaleShardVersion,
  ErrorCode.StaleEpoch,
  ErrorCode.StaleConfig,
  ErrorCode.RetryChangeStream,
  ErrorCode.FailedToSatisfyReadPreference,
]);
/** events per getMore without batchSize (mongod caps batches by bytes only; 16 MB is kept too) */
const DEFAULT_GETMORE_EVENTS = 10_000;

const SPEC_FIELDS = new Set([
  'fullDocument',
  'fullDocumentBeforeChange',
  'resumeAfter',
  'startAfter',
  'startAtOperationTime',
  'allChangesForCluster',
  'showExpandedEvents',
]);
const FULL_DOCUMENT = new Set(['default', 'updateLookup', 'whenAvailable', 'required']);
const BEFORE_CHANGE = new Set(['off', 'whenAvailable', 'required']);
/** stages mongod allows after $changeStream that the stand-in runs */
const STREAM_STAGES = new Set([
  '$match',
  '$project',
  '$addFields',
  '$set',
  '$unset',
  '$replaceRoot',
  '$replaceWith',
]);
/** allowed by mongod after $changeStream, not implemented here */
const UNIMPLEMENTED_STREAM_STAGES = new Set(['$redact', '$changeStreamSplitLargeEvent']);
/** every other stage name mongod 7 knows (refused after $changeStream as not permitted there) */
function checkStages(stages: Array<[string, unknown]>): void {
  for (const [name] of stages) {
    if (STREAM_STAGES.has(name)) continue;
    if (UNIMPLEMENTED_STREAM_STAGES.has(name)) throw unsupported(`${name} in a change stream`);
    if (name === '$changeStream')
      throw new CommandError(
        LocationCode.ChangeStreamNotFirst,
        '$changeStream is only valid as the first stage in a pipeline.',
      );
    if (isMongodStage(name))
      throw new CommandError(
        ErrorCode.IllegalOperation,
        `${name} is not permitted in a $changeStream pipeline`,
      );
    throw unknownOrUnsupportedStage(name);
  }
}

function option(spec: Document, field: string, allowed: Set<string>, fallback: string): string {
  const value = spec[field] ?? fallback;
  if (typeof value !== 'string' || !allowed.has(value))
    throw badValue(
      `Enumeration value '${String(value)}' for field '$changeStream.${field}' is not a valid value.`,
    );
  return value;
}

function startOf(spec: Document): StartOption {
  const given = ['resumeAfter', 'startAfter', 'startAtOperationTime'].filter(
    (field) => spec[field] !== undefined,
  );
  if (given.length > 1)
    throw new CommandError(
      LocationCode.ConflictingResumeOptions,
      'Only one type of resume option is allowed, but multiple were found.',
    );
  if (spec.startAtOperationTime !== undefined) {
    if (!(spec.startAtOperationTime instanceof Timestamp))
      throw new CommandError(
        ErrorCode.TypeMismatch,
        "BSON field '$changeStream.startAtOperationTime' is the wrong type, expected type 'timestamp'",
      );
    return { kind: 'startAtOperationTime', ts: spec.startAtOperationTime };
  }
  if (spec.resumeAfter !== undefined)
    return { kind: 'resumeAfter', point: parseResumeToken(spec.resumeAfter) };
  if (spec.startAfter !== undefined)
    return { kind: 'startAfter', point: parseResumeToken(spec.startAfter) };
  return { kind: 'now' };
}

/** What the stream watches and the namespace its cursor reports. */
function scopeOf(
  command: Document,
  database: string,
  spec: Document,
): { scope: { db?: string; coll?: string }; namespace: string } {
  if (
    typeof command.aggregate !== 'string' &&
    !(isNumeric(command.aggregate) && numberOf(command.aggregate) === 1)
  )
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      `Invalid aggregate namespace: ${String(command.aggregate)} (a collection name, or 1)`,
    );
  const cluster = spec.allChangesForCluster === true;
  const invalid = (message: string) => new CommandError(ErrorCode.InvalidNamespace, message);
  if (cluster) {
    if (database !== 'admin' || typeof command.aggregate === 'string')
      throw invalid(
        "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name",
      );
    return { scope: {}, namespace: 'admin.$cmd.aggregate' };
  }
  if (['admin', 'local', 'config'].includes(database))
    throw invalid(`$changeStream may not be opened on the internal ${database} database`);
  if (typeof command.aggregate === 'string') {
    if (command.aggregate.startsWith('system.'))
      throw invalid(
        `$changeStream may not be opened on the internal ${database}.${command.aggregate} collection`,
      );
    return {
      scope: { db: database, coll: command.aggregate },
      namespace: `${database}.${command.aggregate}`,
    };
  }
  return { scope: { db: database }, namespace: `${database}.$cmd.aggregate` };
}

/** Opens a change stream: an empty first batch (events are read by getMore) and its cursor. */
export function openChangeStream(
  command: Document,
  context: CommandContext,
  spec: unknown,
  stages: Array<[string, unknown]>,
  variables: Variables,
  batchSize: number | undefined,
): Document {
  if (context.server.replica === null)
    throw new CommandError(
      LocationCode.ChangeStreamNeedsReplicaSet,
      'The $changeStream stage is only supported on replica sets',
    );
  if (!isPlainDocument(spec)) throw badValue('$changeStream requires an object as its argument');
  for (const field of Object.keys(spec)) {
    if (!SPEC_FIELDS.has(field))
      throw new CommandError(
        LocationCode.UnknownChangeStreamField,
        `BSON field '$changeStream.${field}' is an unknown field.`,
      );
  }
  if (spec.showExpandedEvents === true) throw unsupported('showExpandedEvents in $changeStream');
  checkStages(stages);
  const { server, database } = context;
  const { scope, namespace } = scopeOf(command, database, spec);
  const store = server.store;
  const stream = new ChangeStream(
    server.changes,
    {
      scope,
      fullDocument: option(spec, 'fullDocument', FULL_DOCUMENT, 'default') as never,
      fullDocumentBeforeChange: option(
        spec,
        'fullDocumentBeforeChange',
        BEFORE_CHANGE,
        'off',
      ) as never,
      lookup: (db, coll, id) => store.get(db, coll)?.byId(id) ?? null,
    },
    stages,
    variables,
    startOf(spec),
    store.clock.now(),
  );
  const id = server.cursors.openStream(namespace, stream);
  return readBatch(context, stream, id, namespace, batchSize ?? 101, true);
}

function readBatch(
  context: CommandContext,
  stream: ChangeStream,
  id: Long,
  namespace: string,
  batchSize: number,
  first: boolean,
): Document {
  const { cursors } = context.server;
  let read;
  try {
    read = stream.read(batchSize);
  } catch (error) {
    cursors.closeCursor(id);
    throw error;
  }
  if (read.invalidated) cursors.closeCursor(id);
  return {
    cursor: {
      [first ? 'firstBatch' : 'nextBatch']: read.batch,
      postBatchResumeToken: read.postBatchResumeToken,
      id: read.invalidated ? Long.ZERO : id,
      ns: namespace,
    },
    ok: 1,
  };
}

/**
 * The error of a getMore that failed holding its cursor (failGetMoreAfterCursorCheckout): a
 * change stream's, with a resumable code, carries ResumableChangeStreamError.
 */
export function getMoreFailure(code: number, changeStream: boolean): CommandError {
  return new CommandError(
    code,
    "Failing command via 'failGetMoreAfterCursorCheckout' failpoint",
    changeStream && RESUMABLE_CODES.has(code)
      ? { errorLabels: ['ResumableChangeStreamError'] }
      : {},
  );
}

/** A change stream's getMore: at once when it has events, else after waiting for changes. */
export async function changeStreamGetMore(
  command: Document,
  context: CommandContext,
  stream: ChangeStream,
  id: Long,
  namespace: string,
): Promise<Document> {
  const batchSize = optionalNumber(command, 'batchSize') ?? DEFAULT_GETMORE_EVENTS;
  const wait = optionalNumber(command, 'maxTimeMS') ?? AWAIT_DATA_DEFAULT_MS;
  const deadline = Date.now() + wait;
  const { cursors, changes } = context.server;
  for (;;) {
    const reply = readBatch(context, stream, id, namespace, batchSize, false);
    const cursor = reply.cursor as Document;
    const remaining = deadline - Date.now();
    if ((cursor.nextBatch as Document[]).length > 0 || !cursors.isOpen(id) || remaining <= 0)
      return reply;
    if (!(await changes.waitForChanges(remaining))) return reply;
    if (!cursors.isOpen(id))
      throw new CommandError(
        ErrorCode.CursorKilled,
        `cursor id ${id.toString()} was killed while it waited`,
      );
  }
}
