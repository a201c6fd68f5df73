/**
 * The `failCommand` fail point, as mongod offers it with enableTestCommands: for the listed
 * commands, optionally only for clients whose handshake appName matches `data.appName`, either
 * a fixed number of times or until turned off, block for blockTimeMS, then close the connection,
 * return an error (with errorLabels), or run the command and attach a writeConcernError.
 * Fail points are server-wide state; `appName` is what keeps concurrent tests apart.
 */
import { badValue, unsupported } from './engine/errors';
import { Document, isNumeric, isPlainDocument, numberOf } from './engine/values';

export interface FailureAction {
  blockMs: number;
  closeConnection: boolean;
  errorCode?: number;
  errorLabels?: unknown[];
  writeConcernError?: Document;
}

interface ActiveFailPoint {
  commands: Set<string>;
  appName?: string;
  /** remaining activations; Infinity for alwaysOn */
  remaining: number;
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

function parseTimes(mode: unknown): number {
  if (mode === 'alwaysOn') return Infinity;
  if (mode === 'off') return 0;
  if (isPlainDocument(mode) && isNumeric(mode.times) && Object.keys(mode).length === 1) {
    return numberOf(mode.times);
  }
  throw unsupported(
    `the fail point mode ${JSON.stringify(mode)} (supported: alwaysOn, off, {times: n})`,
  );
}

export class FailPoints {
  private active: ActiveFailPoint | null = null;
  private activations = 0;

  /** Applies a configureFailPoint command; returns how often the previous setting fired. */
  configure(command: Document): number {
    if (command.configureFailPoint !== 'failCommand') {
      throw unsupported(`the fail point ${String(command.configureFailPoint)} (only failCommand)`);
    }
    const previous = this.activations;
    const remaining = parseTimes(command.mode);
    if (remaining === 0) {
      this.active = null;
      this.activations = 0;
      return previous;
    }
    const data = command.data;
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
    this.active = {
      commands: new Set(data.failCommands as string[]),
      appName: data.appName as string | undefined,
      remaining,
      action,
    };
    this.activations = 0;
    return previous;
  }

  /** The failure to inject into this command, consuming one activation; null when none applies. */
  take(commandName: string, appName: string | undefined): FailureAction | null {
    const point = this.active;
    if (!point || !point.commands.has(commandName)) return null;
    if (point.appName !== undefined && point.appName !== appName) return null;
    point.remaining--;
    this.activations++;
    if (point.remaining <= 0) this.active = null;
    return point.action;
  }
}
