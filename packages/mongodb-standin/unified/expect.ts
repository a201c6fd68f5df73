/**
 * The checks of a unified test: an operation's expectResult / expectError, the clients'
 * expectEvents (command, CMAP and SDAM events), expectLogMessages, and the collections' outcome.
 */
import { Document, MongoClient, MongoServerError } from 'mongodb';
import {
  DRIVER_REDACTS_EVERY_FAILURE,
  REDACTED_FAILURE,
  withoutDriverAdditions,
  withoutUnrunInsertIds,
} from './driver-side';
import { Entities, LoggedMessage, ObservedEvent } from './entities';
import { Matcher } from './match';
import { Mismatch, RunnerGap } from './mismatch';

/** The driver's result in the shape the spec's expectResult describes. */
export function resultShape(name: string, result: unknown): unknown {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return result;
  const r = result as Document;
  if (name === 'insertMany') return { insertedIds: r.insertedIds, insertedCount: r.insertedCount };
  if (name === 'bulkWrite' || 'upsertedIds' in r) {
    return {
      deletedCount: r.deletedCount,
      insertedCount: r.insertedCount,
      insertedIds: r.insertedIds,
      matchedCount: r.matchedCount,
      modifiedCount: r.modifiedCount,
      upsertedCount: r.upsertedCount,
      upsertedIds: r.upsertedIds,
    };
  }
  return result;
}

function labelsOf(error: unknown): (label: string) => boolean {
  const withLabels = error as { hasErrorLabel?: (label: string) => boolean };
  return (label) => withLabels.hasErrorLabel?.(label) ?? false;
}

function checkServerFields(expected: Document, error: Error, where: string): void {
  const server = error instanceof MongoServerError ? error : undefined;
  if (expected.isClientError === true && server)
    throw new Mismatch(
      `${where}: expected a client error, got server ${server.code} ${server.message}`,
    );
  if (expected.isClientError === false && !server)
    throw new Mismatch(`${where}: expected a server error, got ${error.message}`);
  if (expected.errorCode !== undefined && server?.code !== expected.errorCode)
    throw new Mismatch(
      `${where}: expected code ${expected.errorCode}, got ${server?.code} ${error.message}`,
    );
  if (expected.errorCodeName !== undefined && server?.codeName !== expected.errorCodeName)
    throw new Mismatch(
      `${where}: expected ${expected.errorCodeName}, got ${server?.codeName} ${error.message}`,
    );
  const contains = expected.errorContains;
  if (
    contains !== undefined &&
    !error.message.toLowerCase().includes(String(contains).toLowerCase())
  )
    throw new Mismatch(`${where}: expected message containing ${contains}, got ${error.message}`);
}

/** Checks an expected error; what the driver added on its own goes to `driverSide`. */
export function checkError(
  expected: Document,
  error: unknown,
  where: string,
  matcher: Matcher,
  driverSide: string[],
) {
  if (!(error instanceof Error))
    throw new Mismatch(`${where}: expected an error, got ${JSON.stringify(error)}`);
  checkServerFields(expected, error, where);
  const has = labelsOf(error);
  for (const label of expected.errorLabelsContain ?? [])
    if (!has(label))
      throw new Mismatch(`${where}: missing error label ${label} (${error.message})`);
  for (const label of expected.errorLabelsOmit ?? [])
    if (has(label)) throw new Mismatch(`${where}: unexpected error label ${label}`);
  if (expected.errorResponse !== undefined)
    matcher.match(
      expected.errorResponse,
      (error as MongoServerError).errorResponse,
      `${where} response`,
      true,
    );
  if (expected.expectResult !== undefined) {
    const { result, removed } = withoutUnrunInsertIds(
      expected.expectResult,
      resultShape('bulkWrite', error),
    );
    matcher.match(expected.expectResult, result, `${where} result`, true);
    driverSide.push(...removed.map((what) => `${where}: ${what}`));
  }
}

const COMMAND_KINDS = new Set([
  'commandStartedEvent',
  'commandSucceededEvent',
  'commandFailedEvent',
]);

/** Which of an expectEvents list's `eventType`s an observed event belongs to. */
function eventTypeOf(kind: string): 'command' | 'cmap' | 'sdam' {
  if (COMMAND_KINDS.has(kind)) return 'command';
  return /^(pool|connection)/.test(kind) ? 'cmap' : 'sdam';
}

/**
 * Checks the fields a CMAP or SDAM event expectation names: `hasServiceId`, and each other
 * field as the driver's event carries it (`reason`, `awaited`, `interruptInUseConnections`;
 * `newDescription` / `previousDescription` as root documents, which carry many more fields).
 */
function checkMonitoringEvent(spec: Document, event: Document, where: string, matcher: Matcher) {
  for (const [field, expected] of Object.entries(spec)) {
    if (field === 'hasServiceId') {
      if ((event.serviceId != null) !== expected)
        throw new Mismatch(`${where}: expected hasServiceId ${String(expected)}`);
      continue;
    }
    matcher.match(expected, event[field], `${where}.${field}`, /Description$/.test(field));
  }
}

/** Checks one event; returns what the driver added that the test does not expect (driver-side.ts). */
function checkEvent(
  want: Document,
  got: { kind: string; event: Document },
  i: number,
  matcher: Matcher,
): string[] {
  const [kind, spec] = Object.entries(want)[0] as [string, Document];
  if (got.kind !== kind)
    throw new Mismatch(
      `event ${i}: expected ${kind}, got ${got.kind} ${got.event.commandName ?? ''}`,
    );
  if (!COMMAND_KINDS.has(kind)) {
    checkMonitoringEvent(spec, got.event, `event ${i}`, matcher);
    return [];
  }
  if (spec.commandName !== undefined && spec.commandName !== got.event.commandName)
    throw new Mismatch(`event ${i}: expected ${spec.commandName}, got ${got.event.commandName}`);
  if (spec.databaseName !== undefined && spec.databaseName !== got.event.databaseName)
    throw new Mismatch(`event ${i}: expected database ${spec.databaseName}`);
  let driverSide: string[] = [];
  if (spec.command !== undefined) {
    const { command, removed } = withoutDriverAdditions(
      got.event.commandName,
      spec.command,
      got.event.command,
    );
    matcher.match(spec.command, command, `event ${i} command`, true);
    driverSide = removed.map((what) => `event ${i}: ${what}`);
  }
  if (spec.reply !== undefined)
    matcher.match(spec.reply, got.event.reply, `event ${i} reply`, true);
  return driverSide;
}

/** True when `observed` is the event `expected` (`{ <kind>: { fields } }`) describes. */
export function eventMatches(expected: Document, observed: ObservedEvent, matcher: Matcher) {
  return holds(() => checkEvent(expected, observed, 0, matcher));
}

/** Whether `check` passes: false on a mismatch; a runner gap or any other error propagates. */
function holds(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch (error) {
    if (error instanceof Mismatch && !(error instanceof RunnerGap)) return false;
    throw error;
  }
}

/** Refuses `actual` when it has fewer items than `wanted`, or more unless extras are allowed. */
function checkCount(
  what: string,
  wanted: unknown[],
  actual: unknown[],
  allowExtra: boolean | undefined,
  names: () => string[],
): void {
  const tooFew = actual.length < wanted.length;
  if (allowExtra ? tooFew : actual.length !== wanted.length)
    throw new Mismatch(
      `${what}: expected ${wanted.length}, got ${actual.length} (${names().join(', ')})`,
    );
}

/** Checks every client's events; returns what the driver added on its own (driver-side.ts). */
export function checkEvents(
  expectations: Document[],
  entities: Entities,
  matcher: Matcher,
): string[] {
  const driverSide: string[] = [];
  for (const expected of expectations) {
    const eventType = expected.eventType ?? 'command';
    const actual = (entities.events.get(expected.client) ?? []).filter(
      (observed) => eventTypeOf(observed.kind) === eventType,
    );
    const wanted = expected.events as Document[];
    checkCount(
      `${eventType} events of ${expected.client}`,
      wanted,
      actual,
      expected.ignoreExtraEvents,
      () => actual.map((e) => e.event.commandName ?? e.kind),
    );
    wanted.forEach((want, i) => driverSide.push(...checkEvent(want, actual[i], i, matcher)));
  }
  return driverSide;
}

/**
 * Checks one log message against its expectation (level, component, failure, data as a root);
 * returns what driver 7.9 did on its own (driver-side.ts), or null.
 */
function checkLog(
  want: Document,
  got: LoggedMessage,
  where: string,
  matcher: Matcher,
): string | null {
  if (got.level !== want.level || got.component !== want.component)
    throw new Mismatch(
      `${where}: expected ${want.component} ${want.level}, got ${got.component} ${got.level} ${got.data.message}`,
    );
  let driverSide: string | null = null;
  if (want.failureIsRedacted !== undefined) {
    const failure = got.data.failure as unknown;
    if (failure === undefined) throw new Mismatch(`${where}: expected a failure`);
    const redacted = failure === REDACTED_FAILURE;
    if (redacted && !want.failureIsRedacted)
      driverSide = `${where}: ${DRIVER_REDACTS_EVERY_FAILURE}`;
    else if (redacted !== want.failureIsRedacted)
      throw new Mismatch(
        `${where}: the failure is ${want.failureIsRedacted ? 'not ' : ''}redacted`,
      );
  }
  matcher.match(want.data, got.data, `${where} data`, true);
  return driverSide;
}

/**
 * Checks every client's log messages (expectLogMessages), after its ignoreMessages are left
 * out; returns what the driver did on its own (driver-side.ts).
 */
export function checkLogs(
  expectations: Document[],
  entities: Entities,
  matcher: Matcher,
): string[] {
  const driverSide: string[] = [];
  for (const expected of expectations) {
    const ignored = (expected.ignoreMessages ?? []) as Document[];
    const actual = (entities.logs.get(expected.client) ?? []).filter(
      (got) => !ignored.some((want) => holds(() => checkLog(want, got, 'log', matcher))),
    );
    const wanted = expected.messages as Document[];
    checkCount(
      `log messages of ${expected.client}`,
      wanted,
      actual,
      expected.ignoreExtraMessages,
      () => actual.map((got) => String(got.data.message)),
    );
    wanted.forEach((want, i) => {
      const added = checkLog(want, actual[i], `log message ${i}`, matcher);
      if (added) driverSide.push(added);
    });
  }
  return driverSide;
}

export async function checkOutcome(outcome: Document[], uri: string, matcher: Matcher) {
  const check = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    for (const data of outcome) {
      const docs = await check
        .db(data.databaseName)
        .collection(data.collectionName)
        .find({})
        .sort({ _id: 1 })
        .toArray();
      matcher.match(data.documents, docs, `outcome ${data.collectionName}`, false);
    }
  } finally {
    await check.close();
  }
}
