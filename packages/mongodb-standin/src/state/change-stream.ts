/**
 * One open change stream: where it stands in the change history (change-history.ts) and what it
 * turns changes into (engine/change-events.ts, then the stages after `$changeStream`). Reading
 * is synchronous, like every command; a getMore that finds nothing waits for the history to
 * wake it (commands/get-more.ts).
 *
 * Where a stream starts: after the newest change (no option); at `startAtOperationTime`
 * (inclusive); or after the event of a `resumeAfter`/`startAfter` token. A start before what the
 * history keeps is ChangeStreamHistoryLost (286); an event token whose change is not in the
 * history is ChangeStreamFatalError (280); `resumeAfter` an invalidate is InvalidResumeToken
 * (260) while `startAfter` one starts after it, as in mongod.
 *
 * `postBatchResumeToken` after each batch: the last event returned while more events are
 * waiting, otherwise a point past every change read (a high-water mark), so a client resuming
 * from it misses nothing and sees nothing twice.
 */
import { calculateObjectSize, Timestamp } from 'bson';
import {
  comparePoints,
  eventsOf,
  EventOptions,
  highWaterMark,
  pointOf,
  resumeToken,
  ResumePoint,
  StreamEvent,
} from '../engine/change-events';
import { CommandError, ErrorCode } from '../engine/errors';
import { Variables } from '../engine/expressions';
import { runPipeline } from '../engine/pipeline';
import { Document, valuesEqual } from '../engine/values';
import { ChangeHistory } from './change-history';

/** mongod stops a batch once it holds 16 MB */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

export type StartOption =
  | { kind: 'now' }
  | { kind: 'startAtOperationTime'; ts: Timestamp }
  | { kind: 'resumeAfter' | 'startAfter'; point: ResumePoint };

function historyLost(): CommandError {
  return new CommandError(
    ErrorCode.ChangeStreamHistoryLost,
    'Resume of change stream was not possible, as the resume point may no longer be in the oplog.',
  );
}

function nextStamp(ts: Timestamp): Timestamp {
  return new Timestamp({ t: ts.high, i: ts.low + 1 });
}

export interface StreamReadResult {
  batch: Document[];
  postBatchResumeToken: Document;
  /** an invalidate was returned: the cursor closes */
  invalidated: boolean;
}

export class ChangeStream {
  private next: number;
  private point: ResumePoint;
  private skipThrough: ResumePoint | null;
  private forgets: number;
  private buffer: StreamEvent[] = [];
  /** an invalidate was read (shown or filtered out): the stream ends once the buffer is drained */
  private closing = false;
  private invalidated = false;

  constructor(
    private readonly history: ChangeHistory,
    private readonly events: EventOptions,
    private readonly stages: Array<[string, unknown]>,
    private readonly variables: Variables,
    start: StartOption,
    now: Timestamp,
  ) {
    this.forgets = history.forgets;
    if (start.kind === 'now') {
      this.next = history.end;
      this.point = highWaterMark(nextStamp(now));
      this.skipThrough = null;
      return;
    }
    const ts = start.kind === 'startAtOperationTime' ? start.ts : start.point.ts;
    if (ts.lessThan(history.start)) throw historyLost();
    this.next = history.firstAtOrAfter(ts);
    if (start.kind === 'startAtOperationTime') {
      this.point = highWaterMark(ts);
      // a time not reached yet: changes made before it are not the stream's
      this.skipThrough = this.point;
      return;
    }
    const { point } = start;
    if (point.fromInvalidate && start.kind === 'resumeAfter') {
      throw new CommandError(
        ErrorCode.InvalidResumeToken,
        "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification.",
      );
    }
    if (point.event && !this.holds(point)) {
      throw new CommandError(
        ErrorCode.ChangeStreamFatalError,
        `cannot resume stream; the resume token was not found. ${JSON.stringify(resumeToken(point))}`,
      );
    }
    this.point = point;
    this.skipThrough = point;
  }

  /** Whether the history holds the change an event point names. */
  private holds(point: ResumePoint): boolean {
    for (let at = this.next; at < this.history.end; at++) {
      const change = this.history.at(at);
      if (!change.ts.equals(point.ts)) return false;
      if ((change.txnOpIndex ?? 0) === point.txnOpIndex) return true;
    }
    return false;
  }

  /** Up to `batchSize` events from where the stream stands (never waits). */
  read(batchSize: number): StreamReadResult {
    if (this.forgets !== this.history.forgets) this.findPlaceAgain();
    const batch: Document[] = [];
    let bytes = 0;
    while (batch.length < batchSize && bytes < MAX_BATCH_BYTES && !this.invalidated) {
      const event = this.buffer.shift();
      if (event) {
        batch.push(event.doc);
        bytes += calculateObjectSize(event.doc);
        this.point = event.point;
        this.invalidated = event.invalidates;
        continue;
      }
      if (this.closing) {
        this.invalidated = true;
        break;
      }
      if (this.next >= this.history.end) break;
      if (this.next < this.history.begin) throw historyLost();
      this.scan(this.next++);
    }
    return {
      batch,
      postBatchResumeToken: resumeToken(this.point),
      invalidated: this.invalidated,
    };
  }

  /**
   * After the history forgot changes the journal could not write (change-history.ts), events
   * read from them are dropped and reading goes on from the resume point, so changes made later
   * (stamped after the forgotten ones) are neither skipped nor confused with them.
   */
  private findPlaceAgain(): void {
    this.forgets = this.history.forgets;
    this.buffer = [];
    this.closing = false;
    this.next = Math.min(this.next, this.history.firstAtOrAfter(this.point.ts));
    this.skipThrough = this.point;
  }

  /** Turns one change into buffered events; moves the point past it when it shows nothing. */
  private scan(sequence: number): void {
    const change = this.history.at(sequence);
    for (const event of eventsOf(change, this.events)) {
      if (this.skipThrough && comparePoints(event.point, this.skipThrough) <= 0) continue;
      const [shown] = runPipeline(undefined, this.stages, this.variables, [event.doc]);
      if (shown && !valuesEqual(shown._id, event.doc._id)) {
        throw new CommandError(
          ErrorCode.ChangeStreamFatalError,
          'Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed.',
          { errorLabels: ['NonResumableChangeStreamError'] },
        );
      }
      if (shown) this.buffer.push({ ...event, doc: shown });
      if (event.invalidates) this.closing = true;
    }
    if (this.buffer.length > 0) return;
    const following = sequence + 1 < this.history.end ? this.history.at(sequence + 1) : undefined;
    this.point = following?.ts.equals(change.ts)
      ? pointOf(change)
      : highWaterMark(nextStamp(change.ts));
  }
}
