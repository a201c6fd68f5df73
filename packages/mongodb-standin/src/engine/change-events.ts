/**
 * Change stream events as mongod 7 writes them, built from the stamped changes of the history
 * (changes.ts), and the resume tokens that order them.
 *
 * Resume tokens are `{ _data: <hex string> }` like mongod's, and like mongod's they compare as
 * strings in stream order: `82` (mongod's leading type byte for a timestamp), the cluster time
 * (seconds and increment, 8 hex digits each), the token kind (`00` high-water mark, `80` event),
 * the change's position in its transaction (8 hex digits), and `01` for an invalidate (which
 * follows the event that caused it). A high-water mark at time T stands before every event at T:
 * resuming from it delivers every event at T or later. The bytes after the leading one are the
 * stand-in's own (a token is opaque to clients); a token the stand-in did not issue is refused.
 *
 * Events: insert, update (updateDescription; fullDocument per the stream's option), replace,
 * delete, drop, rename, dropDatabase, invalidate (a collection stream after its collection's
 * drop or rename, a database stream after its database's drop). Changes the stream is not
 * scoped to, collection and index creation, collection options, `system.` collections and (for
 * a whole-cluster stream) the admin, config and local databases make no event (without
 * showExpandedEvents, as in mongod).
 */
import { Timestamp } from 'bson';
import { LoggedChange } from './changes';
import { CommandError, ErrorCode } from './errors';
import { Document, isPlainDocument } from './values';

export type FullDocumentMode = 'default' | 'updateLookup' | 'whenAvailable' | 'required';
export type BeforeChangeMode = 'off' | 'whenAvailable' | 'required';

/** What a stream watches: one collection, one database, or (neither given) the whole cluster. */
export interface StreamScope {
  db?: string;
  coll?: string;
}

export interface ResumePoint {
  ts: Timestamp;
  /** false for a high-water mark (before every event at ts) */
  event: boolean;
  txnOpIndex: number;
  fromInvalidate: boolean;
}

export interface EventOptions {
  scope: StreamScope;
  fullDocument: FullDocumentMode;
  fullDocumentBeforeChange: BeforeChangeMode;
  /** the document as stored now, for updateLookup */
  lookup: (db: string, coll: string, id: unknown) => Document | null;
}

export interface StreamEvent {
  point: ResumePoint;
  /** the event as mongod sends it (its `_id` is the token of `point`) */
  doc: Document;
  invalidates: boolean;
}

const HEX_TOKEN = /^82([0-9a-f]{8})([0-9a-f]{8})(00|80)([0-9a-f]{8})(00|01)$/i;

function hex(value: number, digits: number): string {
  return value.toString(16).toUpperCase().padStart(digits, '0');
}

export function resumeToken(point: ResumePoint): Document {
  return {
    _data:
      `82${hex(point.ts.high, 8)}${hex(point.ts.low, 8)}${point.event ? '80' : '00'}` +
      `${hex(point.txnOpIndex, 8)}${point.fromInvalidate ? '01' : '00'}`,
  };
}

export function highWaterMark(ts: Timestamp): ResumePoint {
  return { ts, event: false, txnOpIndex: 0, fromInvalidate: false };
}

/** The point of a token a client sent back (FailedToParse for anything the stand-in did not issue). */
export function parseResumeToken(token: unknown): ResumePoint {
  const data = isPlainDocument(token) ? token._data : undefined;
  const match = typeof data === 'string' ? HEX_TOKEN.exec(data) : null;
  if (!match) {
    throw new CommandError(
      ErrorCode.FailedToParse,
      `Bad resume token: _data of missing or of wrong type, or not issued by this MongoDB stand-in: ${JSON.stringify(token)}`,
    );
  }
  return {
    ts: new Timestamp({ t: parseInt(match[1], 16), i: parseInt(match[2], 16) }),
    event: match[3] === '80',
    txnOpIndex: parseInt(match[4], 16),
    fromInvalidate: match[5] === '01',
  };
}

/** Stream order of two points (negative when `a` comes first). */
export function comparePoints(a: ResumePoint, b: ResumePoint): number {
  return (
    a.ts.compare(b.ts) ||
    Number(a.event) - Number(b.event) ||
    a.txnOpIndex - b.txnOpIndex ||
    Number(a.fromInvalidate) - Number(b.fromInvalidate)
  );
}

/** The point of the change itself (its first event). */
export function pointOf(change: LoggedChange, fromInvalidate = false): ResumePoint {
  return { ts: change.ts, event: true, txnOpIndex: change.txnOpIndex ?? 0, fromInvalidate };
}

/** databases a whole-cluster stream does not report, as in mongod */
const INTERNAL_DATABASES = new Set(['admin', 'config', 'local']);

function inScope(scope: StreamScope, db: string, coll?: string): boolean {
  if (coll !== undefined && coll.startsWith('system.')) return false;
  if (scope.db === undefined) return !INTERNAL_DATABASES.has(db);
  if (scope.db !== db) return false;
  return scope.coll === undefined || scope.coll === coll;
}

function noMatchingImage(which: 'pre' | 'post', change: LoggedChange): CommandError {
  return new CommandError(
    ErrorCode.NoMatchingDocument,
    `Change stream was configured to require a ${which}-image for all update, delete and replace events, but the ${which}-image was not found for the event at ${change.ts.toString()} on ${change.db}.${'coll' in change ? change.coll : ''} (enable changeStreamPreAndPostImages on the collection before the write)`,
  );
}

/** The events `change` makes in a stream with `options` (none, one, or one and an invalidate). */
export function eventsOf(change: LoggedChange, options: EventOptions): StreamEvent[] {
  const { scope } = options;
  const head = (point: ResumePoint, operationType: string): Document => ({
    _id: resumeToken(point),
    operationType,
    clusterTime: change.ts,
    wallTime: change.wall,
  });
  const single = (doc: Document): StreamEvent[] => [
    { point: pointOf(change), doc: withTransaction(doc, change), invalidates: false },
  ];
  const invalidate = (doc: Document): StreamEvent[] => {
    const point = pointOf(change, true);
    return [
      { point: pointOf(change), doc, invalidates: false },
      { point, doc: head(point, 'invalidate'), invalidates: true },
    ];
  };
  switch (change.op) {
    case 'put': {
      if (!change.event || !inScope(scope, change.db, change.coll)) return [];
      const event = head(pointOf(change), change.event);
      const ns = { db: change.db, coll: change.coll };
      const documentKey = { _id: change.doc._id };
      if (change.event === 'update') {
        const fullDocument = postImage(change, options);
        if (fullDocument !== undefined) event.fullDocument = fullDocument;
        Object.assign(event, { ns, documentKey, updateDescription: change.updateDescription });
      } else Object.assign(event, { fullDocument: change.doc, ns, documentKey });
      if (change.event !== 'insert') addPreImage(event, change, options);
      return single(event);
    }
    case 'remove': {
      if (!inScope(scope, change.db, change.coll)) return [];
      const event = head(pointOf(change), 'delete');
      Object.assign(event, {
        ns: { db: change.db, coll: change.coll },
        documentKey: { _id: change.id },
      });
      addPreImage(event, change, options);
      return single(event);
    }
    case 'dropCollection': {
      if (!inScope(scope, change.db, change.coll)) return [];
      const event = { ...head(pointOf(change), 'drop'), ns: { db: change.db, coll: change.coll } };
      return scope.coll === undefined ? single(event) : invalidate(event);
    }
    case 'renameCollection': {
      // a collection stream is invalidated by a rename of its collection or onto it
      const onto = scope.coll !== undefined && inScope(scope, change.db, change.to);
      if (!onto && !inScope(scope, change.db, change.coll)) return [];
      const event = {
        ...head(pointOf(change), 'rename'),
        ns: { db: change.db, coll: change.coll },
        to: { db: change.db, coll: change.to },
      };
      return scope.coll === undefined ? single(event) : invalidate(event);
    }
    case 'dropDatabase': {
      if (scope.coll !== undefined || !inScope(scope, change.db)) return [];
      const event = { ...head(pointOf(change), 'dropDatabase'), ns: { db: change.db } };
      return scope.db === undefined ? single(event) : invalidate(event);
    }
    default:
      return [];
  }
}

function withTransaction(event: Document, change: LoggedChange): Document {
  if (!change.txn) return event;
  return { ...event, lsid: change.txn.lsid, txnNumber: change.txn.txnNumber };
}

/** An update event's fullDocument per the stream's option; undefined when the event has none. */
function postImage(
  change: Extract<LoggedChange, { op: 'put' }>,
  options: EventOptions,
): Document | null | undefined {
  switch (options.fullDocument) {
    case 'default':
      return undefined;
    case 'updateLookup':
      return options.lookup(change.db, change.coll, change.doc._id);
    case 'whenAvailable':
      return change.images ? change.doc : null;
    case 'required':
      if (!change.images) throw noMatchingImage('post', change);
      return change.doc;
  }
}

function addPreImage(
  event: Document,
  change: Extract<LoggedChange, { op: 'put' } | { op: 'remove' }>,
  options: EventOptions,
): void {
  if (options.fullDocumentBeforeChange === 'off') return;
  if (options.fullDocumentBeforeChange === 'required' && !change.images)
    throw noMatchingImage('pre', change);
  event.fullDocumentBeforeChange = change.images ? change.before : null;
}
