/**
 * Command-level behaviour shared by real MongoDB and the stand-in: unordered bulk inserts with
 * a duplicate, dropping a missing collection, failCommand fail points scoped by appName (also on
 * the handshake that announces the appName), refusal of unknown commands, and the query/update
 * operators the service uses.
 */
import { randomUUID } from 'node:crypto';
import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';
import { testClient } from '../support/db';
import { failCommandOff, useConformanceDb, useScopedFaults } from './fixture';

const shared = useConformanceDb('conformance_commands');

test('unordered insertMany with a duplicate in the middle inserts all the others and reports the index', async () => {
  const coll = shared.db.collection('bulk');
  const docs = [1, 2, 3, 2, 5, 6].map((n) => ({ _id: n as never, n }));
  const error = await coll.insertMany(docs, { ordered: false }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MongoBulkWriteError);
  const bulk = error as MongoBulkWriteError;
  expect(bulk.insertedCount).toBe(5);
  const writeErrors = Array.isArray(bulk.writeErrors) ? bulk.writeErrors : [bulk.writeErrors];
  expect(writeErrors.map((w) => [w.index, w.code])).toEqual([[3, 11000]]);
  expect(writeErrors[0].errmsg).toBe(
    `E11000 duplicate key error collection: ${shared.db.databaseName}.bulk index: _id_ dup key: { _id: 2 }`,
  );
  expect(await coll.countDocuments({})).toBe(5);
});

test('ordered insertMany stops at the duplicate', async () => {
  const coll = shared.db.collection('bulk_ordered');
  const docs = [1, 2, 2, 4].map((n) => ({ _id: n as never }));
  const error = await coll.insertMany(docs).catch((e: unknown) => e);
  expect((error as MongoBulkWriteError).insertedCount).toBe(2);
  expect(await coll.countDocuments({})).toBe(2);
});

test('an unknown command is refused with CommandNotFound', async () => {
  const error = await shared.db.command({ definitelyNotACommand: 1 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MongoServerError);
  expect((error as MongoServerError).code).toBe(59);
  expect((error as MongoServerError).codeName).toBe('CommandNotFound');
});

test('drop of a missing collection answers as the server version does: ok from 7.0, NamespaceNotFound before', async () => {
  // SERVER-43894 made dropping a missing collection a no-op in 7.0; the command (not the driver's
  // helper, which hides the error) shows which answer a server gives.
  const { version } = await shared.db.admin().command({ buildInfo: 1 });
  const major = Number(String(version).split('.')[0]);
  const answer = await shared.db.command({ drop: 'never_created' }).catch((e: unknown) => e);
  if (major >= 7) {
    expect(answer).toMatchObject({ ok: 1 });
  } else {
    expect(answer).toBeInstanceOf(MongoServerError);
    expect((answer as MongoServerError).code).toBe(26);
  }
  const names = (await shared.db.listCollections({}, { nameOnly: true }).toArray()).map(
    (c) => c.name,
  );
  expect(names).not.toContain('never_created');
});

describe('failCommand fail points, scoped to one client by appName', () => {
  const scoped = useScopedFaults(shared, 'conformance', { retryReads: false, retryWrites: false });
  const { appName } = scoped;

  test('closeConnection is seen by the driver as a network error, then clears', async () => {
    const coll = scoped.client.db(shared.db.databaseName).collection('fp_close');
    await shared.client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['find'], closeConnection: true, appName },
    });
    const error = await coll.findOne({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoNetworkError);
    await expect(coll.findOne({})).resolves.toBeNull();
  });

  test('errorCode fails only the client with that appName, and errorLabels reach the driver', async () => {
    await shared.client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: 'alwaysOn',
      data: {
        failCommands: ['insert'],
        errorCode: 91,
        errorLabels: ['RetryableWriteError'],
        appName,
      },
    });
    const error = await scoped.client
      .db(shared.db.databaseName)
      .collection('fp_error')
      .insertOne({ a: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoServerError);
    expect((error as MongoServerError).code).toBe(91);
    expect((error as MongoServerError).hasErrorLabel('RetryableWriteError')).toBe(true);
    await expect(shared.db.collection('fp_error').insertOne({ a: 2 })).resolves.toMatchObject({
      acknowledged: true,
    });
  });

  test('blockConnection holds the command while other clients are served, then it succeeds', async () => {
    await shared.client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['ping'], blockConnection: true, blockTimeMS: 1_000, appName },
    });
    let blockedDone = false;
    const blockedPing = scoped.client
      .db(shared.db.databaseName)
      .command({ ping: 1 })
      .then((reply) => {
        blockedDone = true;
        return reply;
      });
    await shared.db.command({ ping: 1 });
    expect(blockedDone).toBe(false);
    await expect(blockedPing).resolves.toMatchObject({ ok: 1 });
  });

  test.each([
    ['buildinfo', { buildInfo: 1 }],
    ['buildInfo', { buildinfo: 1 }],
  ])(
    'failCommands naming %s fails the command sent as %o (any spelling names the command)',
    async (listed, command) => {
      await shared.client.db('admin').command({
        configureFailPoint: 'failCommand',
        mode: { times: 1 },
        data: { failCommands: [listed], errorCode: 2, appName },
      });
      const error = await scoped.client
        .db('admin')
        .command(command)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MongoServerError);
      expect((error as MongoServerError).code).toBe(2);
    },
  );

  test('writeConcernError is attached to a write that still happened', async () => {
    await shared.client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: {
        failCommands: ['insert'],
        writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' },
        appName,
      },
    });
    const coll = scoped.client.db(shared.db.databaseName).collection('fp_wce');
    const error = await coll.insertOne({ _id: 'w' as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoServerError);
    expect((error as MongoServerError).code).toBe(64);
    expect(await shared.db.collection('fp_wce').countDocuments({ _id: 'w' as never })).toBe(1);
  });
});

test('a failCommand on hello scoped by appName fails the handshake that announces that appName', async () => {
  // mongod reads a hello's client metadata before it checks failCommand, so the fail point
  // hits the very first hello of a connection (MongoDB's SDAM spec tests rely on it: "Network
  // error on Monitor handshake", backpressure on connection establishment).
  const appName = `handshake-${randomUUID()}`;
  await shared.client.db('admin').command({
    configureFailPoint: 'failCommand',
    mode: { times: 1 },
    data: { failCommands: ['hello', 'isMaster'], closeConnection: true, appName },
  });
  const client = testClient({ appName, heartbeatFrequencyMS: 500, serverMonitoringMode: 'poll' });
  const heartbeats: string[] = [];
  client.on('serverHeartbeatSucceeded', () => heartbeats.push('succeeded'));
  client.on('serverHeartbeatFailed', () => heartbeats.push('failed'));
  try {
    await client.connect();
    // The monitor's handshake is its first heartbeat: it failed, and the next one succeeded.
    expect(heartbeats.slice(0, 2)).toEqual(['failed', 'succeeded']);
    await expect(client.db('admin').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
  } finally {
    await failCommandOff(shared, appName);
    await client.close();
  }
});

test('a failCommand on hello reaches a monitor that streams: the server stays Unknown while it is on', async () => {
  // mongod runs every hello a streaming monitor gets (each exhaust reply) as a command of its
  // own, fail points included; MongoDB's server-selection logging tests rely on it.
  const appName = `streaming-${randomUUID()}`;
  const client = testClient({
    appName,
    heartbeatFrequencyMS: 500,
    serverMonitoringMode: 'stream',
    serverSelectionTimeoutMS: 2_000,
  });
  const unknown = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 10_000).unref();
    client.on('serverDescriptionChanged', (event) => {
      if (event.newDescription.type !== 'Unknown') return;
      clearTimeout(timer);
      resolve(true);
    });
  });
  try {
    await client.connect();
    await shared.client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: 'alwaysOn',
      data: { failCommands: ['hello', 'isMaster'], closeConnection: true, appName },
    });
    expect(await unknown).toBe(true);
    const insert = await client
      .db(shared.db.databaseName)
      .collection('unreachable')
      .insertOne({ a: 1 })
      .catch((e: unknown) => e);
    expect(insert).toBeInstanceOf(MongoServerSelectionError);
  } finally {
    await failCommandOff(shared, appName);
    await client.close();
  }
  expect(await shared.db.collection('unreachable').countDocuments({})).toBe(0);
});

describe('query and update operators', () => {
  beforeAll(async () => {
    await shared.db.collection('people').insertMany([
      { _id: 1 as never, name: 'ada', age: 36, tags: ['math'], address: { city: 'london' } },
      { _id: 2 as never, name: 'alan', age: 41, tags: ['math', 'cs'], email: 'alan@example.com' },
      { _id: 3 as never, name: 'grace', age: 85, tags: [], email: null },
      { _id: 4 as never, name: 'edsger', age: '72' },
    ]);
  });

  async function ids(filter: object): Promise<number[]> {
    const docs = await shared.db.collection('people').find(filter).sort({ _id: 1 }).toArray();
    return docs.map((doc) => doc._id as unknown as number);
  }

  test.each([
    [{ 'address.city': 'london' }, [1]],
    [{ tags: 'cs' }, [2]],
    [{ age: { $gt: 40 } }, [2, 3]],
    [{ age: { $gte: 36, $lt: 85 } }, [1, 2]],
    [{ age: { $lte: 36 } }, [1]],
    [{ age: { $ne: 36 } }, [2, 3, 4]],
    [{ _id: { $in: [1, 3, 9] } }, [1, 3]],
    [{ _id: { $nin: [1, 3] } }, [2, 4]],
    [{ email: { $exists: true } }, [2, 3]],
    [{ email: { $exists: false } }, [1, 4]],
    [{ email: null }, [1, 3, 4]],
    [{ email: { $type: 'string' } }, [2]],
    [{ age: { $type: 'number' } }, [1, 2, 3]],
    [{ $or: [{ name: 'ada' }, { age: { $gt: 80 } }] }, [1, 3]],
    [{ $and: [{ age: { $gt: 30 } }, { tags: 'math' }] }, [1, 2]],
    [{ age: { $not: { $gt: 40 } } }, [1, 4]],
    [{ $expr: { $gt: ['$age', 50] } }, [3, 4]],
  ])('find %j matches %j', async (filter, expected) => {
    expect(await ids(filter)).toEqual(expected);
  });

  test('sort, skip, limit and projection', async () => {
    const docs = await shared.db
      .collection('people')
      .find({ age: { $type: 'number' } }, { projection: { name: 1 } })
      .sort({ age: -1 })
      .skip(1)
      .limit(2)
      .toArray();
    expect(docs).toEqual([
      { _id: 2, name: 'alan' },
      { _id: 1, name: 'ada' },
    ]);
  });

  test('updateMany with $set, $unset and $min, then deleteMany', async () => {
    const coll = shared.db.collection('updates');
    await coll.insertMany([
      { _id: 1 as never, a: 5, b: 1 },
      { _id: 2 as never, a: 9, b: 1 },
    ]);
    const result = await coll.updateMany(
      { b: 1 },
      { $set: { c: 'x' }, $unset: { b: '' }, $min: { a: 7 } },
    );
    expect(result.matchedCount).toBe(2);
    expect(result.modifiedCount).toBe(2);
    expect(await coll.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, a: 5, c: 'x' },
      { _id: 2, a: 7, c: 'x' },
    ]);
    expect((await coll.deleteMany({ c: 'x' })).deletedCount).toBe(2);
  });

  test('an update that changes nothing matches but does not count as modified', async () => {
    const coll = shared.db.collection('noop');
    await coll.insertOne({ _id: 1 as never, a: 1 });
    expect(await coll.updateOne({ _id: 1 as never }, { $set: { a: 1 } })).toMatchObject({
      matchedCount: 1,
      modifiedCount: 0,
    });
    expect(await coll.updateOne({ _id: 1 as never }, { $set: { a: 2 } })).toMatchObject({
      matchedCount: 1,
      modifiedCount: 1,
    });
  });

  test('replaceOne with upsert takes the _id from the filter', async () => {
    const coll = shared.db.collection('replace');
    const result = await coll.replaceOne({ _id: 'r' as never }, { v: 1 }, { upsert: true });
    expect(result.upsertedId).toBe('r');
    expect(await coll.findOne({ _id: 'r' as never })).toEqual({ _id: 'r', v: 1 });
  });

  test('countDocuments with skip and limit goes through aggregate', async () => {
    expect(await shared.db.collection('people').countDocuments({ tags: 'math' })).toBe(2);
    expect(await shared.db.collection('people').countDocuments({}, { skip: 1, limit: 2 })).toBe(2);
  });

  test('listIndexes and listCollections report what was created', async () => {
    const coll = shared.db.collection('indexed');
    await coll.createIndex({ a: 1, b: -1 }, { name: 'a_b' });
    const indexes = await coll.listIndexes().toArray();
    expect(indexes.map((index) => [index.name, index.key])).toEqual([
      ['_id_', { _id: 1 }],
      ['a_b', { a: 1, b: -1 }],
    ]);
    const names = (await shared.db.listCollections({ name: 'indexed' }).toArray()).map(
      (c) => c.name,
    );
    expect(names).toEqual(['indexed']);
  });
});
