/**
 * The `failCommand` fail point, as mongod offers it with enableTestCommands: for the listed
 * commands, optionally only for clients whose handshake appName matches `data.appName`, either
 * a fixed number of times or until turned off, block for blockTimeMS, then close the connection,
 * return an error (with errorLabels), or run the command and attach a writeConcernError.
 * Fail points are server-wide state; `appName` is what keeps concurrent tests apart.
 *
 * One deliberate difference from mongod, which holds a single failCommand setting: here each
 * `data.appName` has its own slot (plus one unscoped slot), so test files that scope their fail
 * points can run at the same time on one server. Used one at a time, the behaviour is mongod's.
 * `mode: 'off'` clears every slot, or only the slot named by `data.appName` when given.
 *
 * Also `onPrimaryTransactionalWrite`, which fires inside a retryable write (one with lsid and
 * txnNumber): with `data.failBeforeCommitExceptionCode` the write fails with that code before
 * anything is applied or recorded; with `closeConnection` (the default) the connection closes
 * instead of replying, after the write and its record are applied unless it failed.
 *
 * Also `failGetMoreAfterCursorCheckout` (data: `errorCode`): a getMore fails with that code once
 * it holds its cursor, as a real failure would (the cursor is closed, and a change stream's
 * resumable code gets the ResumableChangeStreamError label, commands/get-more.ts), where
 * failCommand answers before the command runs and adds no label of its own.
 */
import { badValue, unsupported } from '../engine/errors';
import { Document, isNumeric, isPlainDocument, numberOf } from '../engine/values';

export interface FailureAction {
  blockMs: number;
  closeConnection: boolean;
  errorCode?: number;
  errorLabels?: unknown[];
  writeConcernError?: Document;
}

interface ActiveFailPoint {
  commands: Set<string>;
  activations: Activations;
  action: FailureAction;
}

const DATA_FIELDS = new Set([
  'failCommands',
  'appName',
  'errorCode',
  'closeConnection',
  'blockConnection',
  'blockTimeMS',
  'writeConcernError',
  'errorLabels',
  'failInternalCommands',
]);

/** How often a fail point fires: after `skip` passes, `remaining` times (Infinity: always). */
interface Activations {
  skip: number;
  remaining: number;
}

function parseMode(mode: unknown): Activations {
  if (mode === 'alwaysOn') return { skip: 0, remaining: Infinity };
  if (mode === 'off') return { skip: 0, remaining: 0 };
  if (isPlainDocument(mode) && Object.keys(mode).length === 1) {
    if (isNumeric(mode.times)) return { skip: 0, remaining: numberOf(mode.times) };
    if (isNumeric(mode.skip)) return { skip: numberOf(mode.skip), remaining: Infinity };
  }
  throw unsupported(
    `the fail point mode ${JSON.stringify(mode)} (supported: alwaysOn, off, {times: n}, {skip: n})`,
  );
}

/** Consumes one pass of a fail point: true when it fires this time. */
function fires(activations: Activations): boolean {
  if (activations.skip > 0) {
    activations.skip--;
    return false;
  }
  activations.remaining--;
  return true;
}

const UNSCOPED = '';

/** What onPrimaryTransactionalWrite does to the retryable write it fires in. */
export interface TransactionalWriteFault {
  closeConnection: boolean;
  failBeforeCommitExceptionCode?: number;
}

const TRANSACTIONAL_WRITE_FIELDS = new Set(['closeConnection', 'failBeforeCommitExceptionCode']);
const GET_MORE_FIELDS = new Set(['errorCode', 'closeConnection']);

export class FailPoints {
  private transactionalWrite: { activations: Activations; fault: TransactionalWriteFault } | null =
    null;
  private getMoreAfterCheckout: { activations: Activations; errorCode: number } | null = null;

  /** by appName; UNSCOPED for fail points that hit every client */
  private readonly active = new Map<string, ActiveFailPoint>();
  /** how often each slot's current (or last) setting fired, reported as mongod's `count` */
  private readonly activations = new Map<string, number>();

  private clear(slot: string): number {
    const count = this.activations.get(slot) ?? 0;
    this.active.delete(slot);
    this.activations.delete(slot);
    return count;
  }

  /** Applies a configureFailPoint command; returns how often the replaced setting fired. */
  configure(command: Document): number {
    if (command.configureFailPoint === 'onPrimaryTransactionalWrite')
      return this.configureTransactionalWrite(command);
    if (command.configureFailPoint === 'failGetMoreAfterCursorCheckout')
      return this.configureGetMore(command);
    if (command.configureFailPoint !== 'failCommand') {
      throw unsupported(
        `the fail point ${String(command.configureFailPoint)} (only failCommand, onPrimaryTransactionalWrite and failGetMoreAfterCursorCheckout)`,
      );
    }
    const activations = parseMode(command.mode);
    const data = command.data;
    if (activations.remaining === 0) {
      if (isPlainDocument(data) && typeof data.appName === 'string')
        return this.clear(data.appName);
      const slots = [...new Set([...this.active.keys(), ...this.activations.keys()])];
      return slots.reduce((sum, slot) => sum + this.clear(slot), 0);
    }
    if (
      !isPlainDocument(data) ||
      !Array.isArray(data.failCommands) ||
      !data.failCommands.every((c) => typeof c === 'string')
    ) {
      throw badValue('failCommand requires data.failCommands, an array of command names');
    }
    for (const field of Object.keys(data))
      if (!DATA_FIELDS.has(field)) throw unsupported(`failCommand data.${field}`);
    if (data.appName !== undefined && typeof data.appName !== 'string')
      throw badValue('data.appName must be a string');
    const action: FailureAction = {
      blockMs: data.blockConnection === true ? numberOf(data.blockTimeMS ?? 0) : 0,
      closeConnection: data.closeConnection === true,
    };
    if (data.errorCode !== undefined) action.errorCode = numberOf(data.errorCode);
    if (Array.isArray(data.errorLabels)) action.errorLabels = data.errorLabels;
    if (isPlainDocument(data.writeConcernError)) action.writeConcernError = data.writeConcernError;
    const slot = (data.appName as string | undefined) ?? UNSCOPED;
    const previous = this.clear(slot);
    this.active.set(slot, {
      commands: new Set(data.failCommands as string[]),
      activations,
      action,
    });
    return previous;
  }

  private configureGetMore(command: Document): number {
    const activations = parseMode(command.mode);
    const remaining = activations.remaining;
    const data = isPlainDocument(command.data) ? command.data : {};
    for (const field of Object.keys(data))
      if (!GET_MORE_FIELDS.has(field))
        throw unsupported(`failGetMoreAfterCursorCheckout data.${field}`);
    if (data.closeConnection === true)
      throw unsupported('failGetMoreAfterCursorCheckout with closeConnection');
    if (remaining > 0 && !isNumeric(data.errorCode))
      throw badValue('failGetMoreAfterCursorCheckout requires data.errorCode');
    this.getMoreAfterCheckout =
      remaining === 0 ? null : { activations, errorCode: numberOf(data.errorCode) };
    return 0;
  }

  /** The error code a getMore fails with now (consuming one activation), or null. */
  takeGetMoreFailure(): number | null {
    const point = this.getMoreAfterCheckout;
    if (!point || !fires(point.activations)) return null;
    if (point.activations.remaining <= 0) this.getMoreAfterCheckout = null;
    return point.errorCode;
  }

  /** The failure to inject into this command, consuming one activation; null when none applies. */
  take(commandName: string, appName: string | undefined): FailureAction | null {
    for (const slot of appName ? [appName, UNSCOPED] : [UNSCOPED]) {
      const point = this.active.get(slot);
      if (!point || !point.commands.has(commandName)) continue;
      if (!fires(point.activations)) return null;
      this.activations.set(slot, (this.activations.get(slot) ?? 0) + 1);
      if (point.activations.remaining <= 0) this.active.delete(slot);
      return point.action;
    }
    return null;
  }

  private configureTransactionalWrite(command: Document): number {
    const activations = parseMode(command.mode);
    const data = isPlainDocument(command.data) ? command.data : {};
    for (const field of Object.keys(data))
      if (!TRANSACTIONAL_WRITE_FIELDS.has(field))
        throw unsupported(`onPrimaryTransactionalWrite data.${field}`);
    const fault: TransactionalWriteFault = { closeConnection: data.closeConnection !== false };
    if (data.failBeforeCommitExceptionCode !== undefined)
      fault.failBeforeCommitExceptionCode = numberOf(data.failBeforeCommitExceptionCode);
    this.transactionalWrite = activations.remaining === 0 ? null : { activations, fault };
    return 0;
  }

  /** The onPrimaryTransactionalWrite fault for this retryable write, consuming one activation. */
  takeTransactionalWrite(): TransactionalWriteFault | null {
    const point = this.transactionalWrite;
    if (!point || !fires(point.activations)) return null;
    if (point.activations.remaining <= 0) this.transactionalWrite = null;
    return point.fault;
  }
}
