/**
 * MongoDB's unified CRUD spec tests (mongodb/specifications, source/crud/tests/unified) as a
 * yardstick for the stand-in: `npx tsx bench/crud-spec.ts <dir of *.json> [--uri <mongodb uri>]`
 * runs every test a standalone MongoDB 7.0 would run (others are skipped: topology, version,
 * serverless, auth) through driver 7.9 and sorts each into
 * - pass: every result, error, command event and final collection content as specified;
 * - refused: a command failed with the stand-in's own "does not support / does not implement"
 *   refusal (BadValue 2 or CommandNotFound 59) where the test expected success: clear, not wrong;
 * - wrong: anything else (a different answer, a different error, or a runner limit, which the
 *   reason names).
 * Without --uri it starts an in-process stand-in. Not part of `npm test`: the spec files are not
 * vendored (fetch them: git clone https://github.com/mongodb/specifications).
 *
 * Implemented from the unified test format: runOnRequirements, createEntities (client with
 * observeEvents/ignoreCommandMonitoringEvents/uriOptions, database, collection), initialData,
 * the collection/database operations these files use, expectResult/expectError with $$exists,
 * $$type, $$unsetOrMatches, expectEvents (command started/succeeded/failed), outcome, and the
 * failPoint runner operation. Root documents may have extra fields, as the format says.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  BSON,
  Collection,
  CommandFailedEvent,
  CommandStartedEvent,
  CommandSucceededEvent,
  Db,
  Document,
  MongoClient,
  MongoServerError,
} from 'mongodb';
import { startStandin } from '../src/standin';

const SERVER_VERSION = [7, 0, 0];
type Verdict = 'pass' | 'refused' | 'wrong' | 'skipped';

class Mismatch extends Error {}

function versionOf(text: string): number[] {
  return text.split('.').map(Number);
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Why a standalone 7.0 would not run this, or null when it would. */
function unmetRequirement(requirements: Document[] | undefined): string | null {
  if (!requirements) return null;
  const reasons = requirements.map((req) => {
    if (
      req.minServerVersion &&
      compareVersions(SERVER_VERSION, versionOf(req.minServerVersion)) < 0
    )
      return `needs ${req.minServerVersion}`;
    if (
      req.maxServerVersion &&
      compareVersions(SERVER_VERSION, versionOf(req.maxServerVersion)) > 0
    )
      return `needs at most ${req.maxServerVersion}`;
    if (req.topologies && !req.topologies.includes('single')) return `needs ${req.topologies}`;
    if (req.serverless === 'require') return 'needs serverless';
    if (req.auth === true) return 'needs auth';
    if (req.csfle) return 'needs csfle';
    if (req.serverParameters) return 'needs server parameters';
    return null;
  });
  return reasons.includes(null) ? null : reasons.join(' | ');
}

const NUMERIC = (value: unknown) =>
  typeof value === 'number' ||
  value instanceof BSON.Int32 ||
  value instanceof BSON.Long ||
  value instanceof BSON.Double;

function asNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value instanceof BSON.Long) return value.toNumber();
  return (value as { valueOf(): number }).valueOf();
}

const TYPE_TESTS: Record<string, (v: unknown) => boolean> = {
  double: (v) => typeof v === 'number' || v instanceof BSON.Double,
  int: (v) => (typeof v === 'number' && Number.isInteger(v)) || v instanceof BSON.Int32,
  long: (v) => v instanceof BSON.Long || (typeof v === 'number' && Number.isInteger(v)),
  string: (v) => typeof v === 'string',
  object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  array: Array.isArray,
  objectId: (v) => v instanceof BSON.ObjectId,
  bool: (v) => typeof v === 'boolean',
  date: (v) => v instanceof Date,
  null: (v) => v === null,
  binData: (v) => v instanceof BSON.Binary,
  timestamp: (v) => v instanceof BSON.Timestamp,
};

/** The unified format's matching rules (root documents may carry extra fields). */
function match(expected: unknown, actual: unknown, where: string, root: boolean): void {
  if (actual instanceof Map) actual = Object.fromEntries(actual);
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    const keys = Object.keys(expected as Document);
    if (keys.length === 1 && keys[0].startsWith('$$')) {
      const operand = (expected as Document)[keys[0]];
      switch (keys[0]) {
        case '$$exists':
          if ((actual !== undefined) !== operand)
            throw new Mismatch(`${where}: expected ${operand ? 'present' : 'absent'}`);
          return;
        case '$$type': {
          const types = Array.isArray(operand) ? operand : [operand];
          if (!types.some((type: string) => TYPE_TESTS[type]?.(actual)))
            throw new Mismatch(`${where}: expected type ${types} got ${JSON.stringify(actual)}`);
          return;
        }
        case '$$unsetOrMatches':
          if (actual === undefined) return;
          return match(operand, actual, where, root);
        default:
          throw new Mismatch(`${where}: runner does not implement ${keys[0]}`);
      }
    }
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      throw new Mismatch(`${where}: expected a document, got ${JSON.stringify(actual)}`);
    for (const key of keys)
      match((expected as Document)[key], (actual as Document)[key], `${where}.${key}`, false);
    if (!root) {
      for (const key of Object.keys(actual as Document)) {
        if (!(key in (expected as Document)) && (actual as Document)[key] !== undefined)
          throw new Mismatch(`${where}: unexpected field ${key}`);
      }
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      throw new Mismatch(
        `${where}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
      );
    // The documents of a root array (find results, outcome) are root documents themselves.
    expected.forEach((item, i) => match(item, actual[i], `${where}[${i}]`, root));
    return;
  }
  if (NUMERIC(expected) && NUMERIC(actual) && asNumber(expected) === asNumber(actual)) return;
  const same =
    expected === actual ||
    (expected !== null &&
      actual !== null &&
      typeof expected === 'object' &&
      Buffer.from(BSON.serialize({ v: expected })).equals(BSON.serialize({ v: actual })));
  if (!same)
    throw new Mismatch(
      `${where}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
    );
}

interface Entities {
  clients: Map<string, MongoClient>;
  events: Map<string, Array<{ kind: string; event: Document }>>;
  databases: Map<string, Db>;
  collections: Map<string, Collection>;
}

/** The driver's result in the shape the spec's expectResult describes. */
function resultShape(name: string, result: unknown): unknown {
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

/** Translates a spec bulkWrite request list into the driver's (they are the same shape). */
async function runOperation(operation: Document, entities: Entities): Promise<unknown> {
  const args: Document = { ...(operation.arguments ?? {}) };
  const target = operation.object as string;
  if (target === 'testRunner') {
    if (operation.name !== 'failPoint')
      throw new Mismatch(`runner does not implement ${operation.name}`);
    await entities.clients
      .get(args.client)!
      .db('admin')
      .command({ configureFailPoint: 'failCommand', ...args.failPoint });
    return undefined;
  }
  const collection = entities.collections.get(target);
  const database = entities.databases.get(target);
  const client = entities.clients.get(target);
  const {
    filter,
    update,
    replacement,
    document,
    documents,
    pipeline,
    requests,
    fieldName,
    ...options
  } = args;
  // The format spells returnDocument 'Before'/'After'; the driver takes 'before'/'after'.
  if (typeof options.returnDocument === 'string')
    options.returnDocument = options.returnDocument.toLowerCase();
  if (collection) {
    switch (operation.name) {
      case 'insertOne':
        return collection.insertOne(document, options);
      case 'insertMany':
        return collection.insertMany(documents, options);
      case 'updateOne':
        return collection.updateOne(filter, update, options);
      case 'updateMany':
        return collection.updateMany(filter, update, options);
      case 'replaceOne':
        return collection.replaceOne(filter, replacement, options);
      case 'deleteOne':
        return collection.deleteOne(filter, options);
      case 'deleteMany':
        return collection.deleteMany(filter, options);
      case 'find':
        return collection.find(filter, options).toArray();
      case 'findOne':
        return collection.findOne(filter, options);
      case 'aggregate':
        return collection.aggregate(pipeline, options).toArray();
      case 'countDocuments':
        return collection.countDocuments(filter, options);
      case 'estimatedDocumentCount':
        return collection.estimatedDocumentCount(options);
      case 'count':
        return (
          collection as unknown as { count(f: Document, o: Document): Promise<number> }
        ).count(filter ?? {}, options);
      case 'distinct':
        return collection.distinct(fieldName, filter, options);
      case 'findOneAndUpdate':
        return collection.findOneAndUpdate(filter, update, {
          ...options,
          includeResultMetadata: false,
        });
      case 'findOneAndReplace':
        return collection.findOneAndReplace(filter, replacement, {
          ...options,
          includeResultMetadata: false,
        });
      case 'findOneAndDelete':
        return collection.findOneAndDelete(filter, { ...options, includeResultMetadata: false });
      case 'bulkWrite':
        return collection.bulkWrite(requests, options);
      case 'createIndex': {
        const { keys, ...indexOptions } = options;
        return collection.createIndex(keys, indexOptions);
      }
      default:
        throw new Mismatch(`runner does not implement collection.${operation.name}`);
    }
  }
  if (database) {
    switch (operation.name) {
      case 'aggregate':
        return database.aggregate(pipeline, options).toArray();
      case 'runCommand':
        return database.command(options.command);
      case 'createCollection': {
        const { collection: name, ...createOptions } = options;
        return database.createCollection(name, createOptions).then(() => undefined);
      }
      case 'dropCollection':
        return database.dropCollection(options.collection).then(() => undefined);
      case 'modifyCollection': {
        const { collection: name, ...modifications } = options;
        return database.command({ collMod: name, ...modifications }).then(() => undefined);
      }
      default:
        throw new Mismatch(`runner does not implement database.${operation.name}`);
    }
  }
  if (client && operation.name === 'clientBulkWrite') {
    const { models, ...bulkOptions } = args;
    const driverModels = (models as Document[]).map((model) => {
      const [name, spec] = Object.entries(model)[0];
      return { name, ...spec };
    });
    return client.bulkWrite(driverModels as never, bulkOptions);
  }
  if (client) throw new Mismatch(`runner does not implement client.${operation.name}`);
  throw new Mismatch(`unknown entity ${target}`);
}

/** The stand-in's own refusal of something it does not implement. */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof MongoServerError &&
    (error.code === 2 || error.code === 59) &&
    /stand-in does not (support|implement)|the MongoDB stand-in/.test(error.message)
  );
}

async function runTest(
  file: Document,
  test: Document,
  uri: string,
): Promise<{ verdict: Verdict; reason?: string }> {
  const unmet =
    unmetRequirement(file.runOnRequirements) ?? unmetRequirement(test.runOnRequirements);
  if (unmet) return { verdict: 'skipped', reason: unmet };
  if (test.skipReason) return { verdict: 'skipped', reason: test.skipReason };
  const entities: Entities = {
    clients: new Map(),
    events: new Map(),
    databases: new Map(),
    collections: new Map(),
  };
  let refused: string | null = null;
  try {
    for (const entity of file.createEntities ?? []) {
      const [kind, spec] = Object.entries(entity)[0] as [string, Document];
      if (kind === 'client') {
        const client = new MongoClient(uri, {
          monitorCommands: true,
          serverSelectionTimeoutMS: 5_000,
          ...(spec.uriOptions ?? {}),
        });
        const observed = new Set<string>(spec.observeEvents ?? []);
        const ignored = new Set<string>([
          ...(spec.ignoreCommandMonitoringEvents ?? []),
          'configureFailPoint',
        ]);
        const events: Array<{ kind: string; event: Document }> = [];
        const record =
          (kind: string) =>
          (event: CommandStartedEvent | CommandSucceededEvent | CommandFailedEvent) => {
            if (observed.has(kind) && !ignored.has(event.commandName))
              events.push({ kind, event: event as unknown as Document });
          };
        client.on('commandStarted', record('commandStartedEvent'));
        client.on('commandSucceeded', record('commandSucceededEvent'));
        client.on('commandFailed', record('commandFailedEvent'));
        await client.connect();
        entities.clients.set(spec.id, client);
        entities.events.set(spec.id, events);
      } else if (kind === 'database') {
        entities.databases.set(
          spec.id,
          entities.clients.get(spec.client)!.db(spec.databaseName, spec.databaseOptions),
        );
      } else if (kind === 'collection') {
        entities.collections.set(
          spec.id,
          entities.databases
            .get(spec.database)!
            .collection(spec.collectionName, spec.collectionOptions),
        );
      } else throw new Mismatch(`runner does not implement ${kind} entities`);
    }
    const setup = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
    try {
      for (const data of file.initialData ?? []) {
        const db = setup.db(data.databaseName);
        await db.dropCollection(data.collectionName).catch(() => undefined);
        if (data.documents.length > 0)
          await db.collection(data.collectionName).insertMany(data.documents);
        else await db.createCollection(data.collectionName);
      }
    } finally {
      await setup.close();
    }
    for (const events of entities.events.values()) events.length = 0;
    for (const [index, operation] of test.operations.entries()) {
      const where = `operation ${index} (${operation.name})`;
      let result: unknown;
      let error: unknown;
      try {
        result = await runOperation(operation, entities);
      } catch (caught) {
        if (caught instanceof Mismatch) throw caught;
        error = caught;
      }
      if (error && isRefusal(error)) {
        refused = `${where}: ${(error as Error).message}`;
        throw error;
      }
      if (operation.expectError) {
        const expected = operation.expectError as Document;
        if (!error)
          throw new Mismatch(
            `${where}: expected an error, got ${JSON.stringify(resultShape(operation.name, result))}`,
          );
        const server = error instanceof MongoServerError ? error : undefined;
        if (expected.isClientError === true && server)
          throw new Mismatch(
            `${where}: expected a client error, got server ${server.code} ${server.message}`,
          );
        if (expected.isClientError === false && !server)
          throw new Mismatch(`${where}: expected a server error, got ${(error as Error).message}`);
        if (expected.errorCode !== undefined && server?.code !== expected.errorCode)
          throw new Mismatch(
            `${where}: expected code ${expected.errorCode}, got ${server?.code} ${(error as Error).message}`,
          );
        if (expected.errorCodeName !== undefined && server?.codeName !== expected.errorCodeName)
          throw new Mismatch(
            `${where}: expected ${expected.errorCodeName}, got ${server?.codeName} ${(error as Error).message}`,
          );
        if (
          expected.errorContains !== undefined &&
          !(error as Error).message
            .toLowerCase()
            .includes(String(expected.errorContains).toLowerCase())
        )
          throw new Mismatch(
            `${where}: expected message containing ${expected.errorContains}, got ${(error as Error).message}`,
          );
        for (const label of expected.errorLabelsContain ?? [])
          if (!server?.hasErrorLabel(label))
            throw new Mismatch(`${where}: missing error label ${label}`);
        if (expected.expectResult !== undefined)
          match(expected.expectResult, resultShape('bulkWrite', error), `${where} result`, true);
        continue;
      }
      if (error) {
        if (operation.ignoreResultAndError) continue;
        throw new Mismatch(
          `${where}: unexpected error ${(error as MongoServerError).code ?? ''} ${(error as Error).message}`,
        );
      }
      if (operation.expectResult !== undefined)
        match(operation.expectResult, resultShape(operation.name, result), `${where} result`, true);
    }
    for (const expected of test.expectEvents ?? []) {
      const actual = entities.events.get(expected.client) ?? [];
      const relevant = expected.eventType && expected.eventType !== 'command' ? [] : actual;
      const wanted = expected.events as Document[];
      if (
        expected.ignoreExtraEvents
          ? relevant.length < wanted.length
          : relevant.length !== wanted.length
      )
        throw new Mismatch(
          `events of ${expected.client}: expected ${wanted.length}, got ${relevant.length} (${relevant.map((e) => e.event.commandName).join(', ')})`,
        );
      wanted.forEach((want, i) => {
        const [kind, spec] = Object.entries(want)[0] as [string, Document];
        const got = relevant[i];
        if (got.kind !== kind)
          throw new Mismatch(
            `event ${i}: expected ${kind}, got ${got.kind} ${got.event.commandName}`,
          );
        if (spec.commandName !== undefined && spec.commandName !== got.event.commandName)
          throw new Mismatch(
            `event ${i}: expected ${spec.commandName}, got ${got.event.commandName}`,
          );
        if (spec.databaseName !== undefined && spec.databaseName !== got.event.databaseName)
          throw new Mismatch(`event ${i}: expected database ${spec.databaseName}`);
        if (spec.command !== undefined)
          match(spec.command, got.event.command, `event ${i} command`, true);
        if (spec.reply !== undefined) match(spec.reply, got.event.reply, `event ${i} reply`, true);
      });
    }
    if (test.outcome) {
      const check = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
      try {
        for (const data of test.outcome) {
          const docs = await check
            .db(data.databaseName)
            .collection(data.collectionName)
            .find({})
            .sort({ _id: 1 })
            .toArray();
          match(data.documents, docs, `outcome ${data.collectionName}`, false);
          if (docs.length !== data.documents.length)
            throw new Mismatch(`outcome ${data.collectionName}: count`);
        }
      } finally {
        await check.close();
      }
    }
    return { verdict: 'pass' };
  } catch (error) {
    if (refused) return { verdict: 'refused', reason: refused };
    return { verdict: 'wrong', reason: (error as Error).message };
  } finally {
    await entities.clients
      .get('client0')
      ?.db('admin')
      .command({ configureFailPoint: 'failCommand', mode: 'off' })
      .catch(() => undefined);
    for (const client of entities.clients.values()) await client.close();
  }
}

async function main(): Promise<void> {
  const [dir, ...rest] = process.argv.slice(2);
  if (!dir)
    throw new Error(
      'usage: tsx bench/crud-spec.ts <source/crud/tests/unified> [--uri mongodb://...]',
    );
  const uriAt = rest.indexOf('--uri');
  const standin = uriAt === -1 ? await startStandin({ log: () => undefined }) : null;
  const uri = uriAt === -1 ? standin!.uri : rest[uriAt + 1];
  const counts: Record<Verdict, number> = { pass: 0, refused: 0, wrong: 0, skipped: 0 };
  const lines: string[] = [];
  try {
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort()) {
      const file = BSON.EJSON.parse(readFileSync(path.join(dir, name), 'utf8'), {
        relaxed: true,
      }) as Document;
      for (const test of file.tests as Document[]) {
        const { verdict, reason } = await runTest(file, test, uri);
        counts[verdict]++;
        if (verdict === 'refused' || verdict === 'wrong')
          lines.push(`${verdict.toUpperCase()} ${name} :: ${test.description} :: ${reason}`);
      }
    }
  } finally {
    await standin?.stop();
  }
  for (const line of lines) console.log(line);
  console.log(JSON.stringify(counts));
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
