/**
 * One unified test from its file: requirements, entities, initial data, operations with their
 * expectations, events, outcome; then its fail points off and its clients closed. The verdict:
 * - pass: every result, error, command event and final collection content as specified;
 * - refused: a command failed with the stand-in's own "does not support / does not implement"
 *   refusal (BadValue 2 or CommandNotFound 59) where the test expected otherwise: clear, not wrong;
 * - wrong: anything else: a different answer or a different error;
 * - runner-gap: the test needs something this runner does not implement (named in the reason),
 *   so it says nothing about the server; counted apart, never as a pass;
 * - driver-side: everything as specified except what driver 7.9 does on its own (driver-side.ts),
 *   which the reason names, or a failure of a test the Node driver's own runner skips as a driver
 *   gap; not a pass;
 * - skipped: the server under test would not run it (runOnRequirements), it needs a secondary a
 *   one-member set does not have, or the file says why.
 */
import {
  Document,
  MongoClient,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';
import { createEntities } from './create-entities';
import { Entities } from './entities';
import { checkError, checkEvents, checkLogs, checkOutcome, resultShape } from './expect';
import { Matcher } from './match';
import { NODE_RUNNER_SKIPS } from './driver-side';
import { Mismatch, RunnerGap } from './mismatch';
import { OPERATIONS } from './operations';
import { OperationContext } from './operations/table';
import { missingSecondary, ServerProfile, unmetRequirement } from './requirements';

export type Verdict = 'pass' | 'refused' | 'wrong' | 'driver-side' | 'runner-gap' | 'skipped';

export interface TestResult {
  verdict: Verdict;
  reason?: string;
}

/** The stand-in's own refusal of something it does not implement. */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof MongoServerError &&
    (error.code === 2 || error.code === 59) &&
    /stand-in does not (support|implement)|the MongoDB stand-in/.test(error.message)
  );
}

class Refused extends Error {}

const isNetworkError = (error: unknown) =>
  error instanceof MongoNetworkError || error instanceof MongoServerSelectionError;

/** The newest version of the format this runner reads (mongodb/specifications 92b3c0b's newest). */
const SCHEMA_VERSION = { major: 1, minor: 26 };

/** Why the runner cannot read a file of this schemaVersion, or null when it can. */
function unreadableSchema(version: unknown): string | null {
  const [major, minor] = String(version).split('.').map(Number);
  return major === SCHEMA_VERSION.major && minor <= SCHEMA_VERSION.minor
    ? null
    : `schemaVersion ${String(version)}: this runner reads ${SCHEMA_VERSION.major}.0 to ${SCHEMA_VERSION.major}.${SCHEMA_VERSION.minor}`;
}

/**
 * Ends every open transaction, as the format asks of runners on a replica set ("Terminating Open
 * Transactions"): an earlier test's transaction would otherwise hold the collections this one
 * drops and fills until its lifetime runs out. Interrupted (11601) is the format's to ignore.
 */
async function killAllSessions(setup: MongoClient): Promise<void> {
  await setup
    .db('admin')
    .command({ killAllSessions: [] })
    .catch((error: unknown) => {
      if ((error as MongoServerError).code !== 11601) throw error;
    });
}

/** The test's initialData; a refusal of what the stand-in does not implement is a Refused. */
async function loadInitialData(initialData: Document[] | undefined, uri: string): Promise<void> {
  const setup = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    await killAllSessions(setup);
    await writeInitialData(setup, initialData ?? []);
  } catch (error) {
    if (isRefusal(error)) throw new Refused(`initialData: ${(error as Error).message}`);
    throw error;
  } finally {
    await setup.close();
  }
}

async function writeInitialData(setup: MongoClient, initialData: Document[]): Promise<void> {
  for (const data of initialData) {
    const db = setup.db(data.databaseName);
    await db
      .dropCollection(data.collectionName, { writeConcern: { w: 'majority' } })
      .catch(() => undefined);
    await db.createCollection(data.collectionName, {
      ...data.createOptions,
      writeConcern: { w: 'majority' },
    });
    if (data.documents.length > 0)
      await db
        .collection(data.collectionName)
        .insertMany(data.documents, { writeConcern: { w: 'majority' } });
  }
}

/** Resolves the operation's target and its `session` argument, then runs its handler. */
function execute(operation: Document, context: OperationContext): Promise<unknown> {
  const { entities } = context;
  const target = operation.object as string;
  const kind = target === 'testRunner' ? 'testRunner' : entities.kind(target);
  const handler = OPERATIONS[`${kind}.${operation.name}`];
  if (!handler) throw new RunnerGap(`runner does not implement ${kind}.${operation.name}`);
  const args: Document = { ...(operation.arguments ?? {}) };
  if (typeof args.session === 'string') args.session = entities.session(args.session);
  return handler(args, target === 'testRunner' ? undefined : entities.value(target), context);
}

async function runOperation(
  operation: Document,
  index: number,
  context: OperationContext,
  matcher: Matcher,
  rethrow = false,
) {
  const where = `operation ${index} (${operation.name})`;
  let result: unknown;
  try {
    result = await execute(operation, context);
  } catch (error) {
    if (error instanceof Mismatch || error instanceof Refused) throw error;
    if (isRefusal(error)) throw new Refused(`${where}: ${(error as Error).message}`);
    if (operation.expectError) {
      checkError(operation.expectError, error, where, matcher, context.driverSide);
      if (rethrow) throw error;
      return;
    }
    // What the server or the network did, not an operation the driver refused as malformed.
    if (operation.ignoreResultAndError && error instanceof MongoServerError) {
      if (rethrow) throw error;
      return;
    }
    if (operation.ignoreResultAndError && isNetworkError(error)) {
      if (rethrow) throw error;
      return;
    }
    throw new Mismatch(
      `${where}: unexpected error ${(error as MongoServerError).code ?? ''} ${(error as Error).message}`,
    );
  }
  if (operation.expectError)
    throw new Mismatch(
      `${where}: expected an error, got ${JSON.stringify(resultShape(operation.name, result))}`,
    );
  if (operation.expectResult !== undefined)
    matcher.match(
      operation.expectResult,
      resultShape(operation.name, result),
      `${where} result`,
      true,
    );
  if (operation.saveResultAsEntity) context.entities.set(operation.saveResultAsEntity, result);
}

async function cleanUp(entities: Entities): Promise<void> {
  for (const { client, name } of entities.failPoints)
    await client
      .db('admin')
      .command({ configureFailPoint: name, mode: 'off' })
      .catch(() => undefined);
  await entities.close();
}

async function runSteps(file: Document, test: Document, context: OperationContext) {
  const matcher = new Matcher(context.entities);
  context.runNested = async (operations) => {
    for (const [index, operation] of operations.entries())
      await runOperation(operation, index, context, matcher, true);
  };
  context.runOne = (operation) => runOperation(operation, 0, context, matcher);
  await createEntities(file.createEntities ?? [], context);
  await loadInitialData(file.initialData, context.uri);
  for (const events of context.entities.events.values()) events.length = 0;
  for (const logs of context.entities.logs.values()) logs.length = 0;
  for (const [index, operation] of (test.operations as Document[]).entries())
    await runOperation(operation, index, context, matcher);
  context.driverSide.push(...checkEvents(test.expectEvents ?? [], context.entities, matcher));
  context.driverSide.push(...checkLogs(test.expectLogMessages ?? [], context.entities, matcher));
  if (test.outcome) await checkOutcome(test.outcome, context.uri, matcher);
}

export async function runTest(
  file: Document,
  test: Document,
  uri: string,
  server: ServerProfile,
): Promise<TestResult> {
  const unreadable = unreadableSchema(file.schemaVersion);
  if (unreadable) return { verdict: 'runner-gap', reason: unreadable };
  const unmet =
    unmetRequirement(file.runOnRequirements, server) ??
    unmetRequirement(test.runOnRequirements, server) ??
    missingSecondary(file, test, server);
  if (unmet) return { verdict: 'skipped', reason: unmet };
  if (test.skipReason) return { verdict: 'skipped', reason: test.skipReason };
  const context: OperationContext = {
    entities: new Entities(),
    uri,
    runNested: () => Promise.reject(new Mismatch('nested operations before the test started')),
    runOne: () => Promise.reject(new Mismatch('an operation before the test started')),
    driverSide: [],
  };
  try {
    await runSteps(file, test, context);
    if (context.driverSide.length > 0)
      return { verdict: 'driver-side', reason: context.driverSide.join('; ') };
    return { verdict: 'pass' };
  } catch (error) {
    if (error instanceof Refused) return { verdict: 'refused', reason: error.message };
    // Before runner gaps: what the runner cannot do there is what driver 7.9 lacks (renameByName).
    const skippedByNode =
      NODE_RUNNER_SKIPS[`${file.description} :: ${test.description}`] ??
      NODE_RUNNER_SKIPS[test.description as string];
    if (skippedByNode && error instanceof Mismatch)
      return { verdict: 'driver-side', reason: `${skippedByNode}; here: ${error.message}` };
    if (error instanceof RunnerGap) return { verdict: 'runner-gap', reason: error.message };
    return { verdict: 'wrong', reason: (error as Error).message };
  } finally {
    await cleanUp(context.entities);
  }
}
