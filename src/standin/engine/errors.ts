/**
 * Command failures as MongoDB reports them. Every refusal the stand-in makes carries one of
 * MongoDB's own numeric codes and its exact codeName, so driver code that branches on `code`
 * behaves as it would against mongod. `extra` holds fields mongod adds beside errmsg
 * (keyPattern/keyValue on E11000). Nothing here formats wire replies; the server does that.
 */
export const ERROR_CODE_NAMES = {
  1: 'InternalError',
  2: 'BadValue',
  6: 'HostUnreachable',
  9: 'FailedToParse',
  13: 'Unauthorized',
  14: 'TypeMismatch',
  26: 'NamespaceNotFound',
  27: 'IndexNotFound',
  28: 'PathNotViable',
  40: 'ConflictingUpdateOperators',
  43: 'CursorNotFound',
  48: 'NamespaceExists',
  50: 'MaxTimeMSExpired',
  59: 'CommandNotFound',
  66: 'ImmutableField',
  67: 'CannotCreateIndex',
  72: 'InvalidOptions',
  73: 'InvalidNamespace',
  85: 'IndexOptionsConflict',
  86: 'IndexKeySpecsConflict',
  89: 'NetworkTimeout',
  91: 'ShutdownInProgress',
  10107: 'NotWritablePrimary',
  11000: 'DuplicateKey',
  11600: 'InterruptedAtShutdown',
  11602: 'InterruptedDueToReplStateChange',
  13435: 'NotPrimaryNoSecondaryOk',
  13436: 'NotPrimaryOrSecondary',
  189: 'PrimarySteppedDown',
  224: 'QueryFeatureNotAllowed',
  262: 'ExceededTimeLimit',
  40415: 'Location40415',
} as const satisfies Record<number, string>;

/** Name mongod uses for a code; codes it does not name here are reported as `Location<code>`. */
export function codeNameOf(code: number): string {
  return (ERROR_CODE_NAMES as Record<number, string>)[code] ?? `Location${code}`;
}

export class CommandError extends Error {
  readonly codeName: string;
  constructor(
    readonly code: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.codeName = codeNameOf(code);
  }
}

/** Refusal of something the stand-in deliberately does not implement (never a silent wrong answer). */
export function unsupported(what: string): CommandError {
  return new CommandError(2, `the MongoDB stand-in does not support ${what}`);
}

export function badValue(message: string): CommandError {
  return new CommandError(2, message);
}
