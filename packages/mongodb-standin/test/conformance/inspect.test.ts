/**
 * What mongosh and Compass read to look at data: distinct, dbStats, collStats, the $collStats
 * stage and listDatabases sizes. Sizes are asserted only where mongod's meaning is exact (the
 * count, and a collection's size as the sum of its documents' BSON sizes); index sizes depend
 * on the storage engine, so only their names and total are checked.
 */
import { BSON, Double, Int32, Long, MongoServerError } from 'mongodb';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_inspect');

const PEOPLE = [
  { _id: 1, team: 'red', n: new Int32(1), tags: ['a', 'b'], pets: [{ kind: 'cat' }] },
  { _id: 2, team: 'blue', n: new Double(1), tags: ['b', ['c']], pets: [{ kind: 'dog' }, {}] },
  { _id: 3, team: 'red', n: Long.fromNumber(2), tags: 'a', pets: { kind: 'cat' } },
  { _id: 4, team: null, n: 'x' },
  { _id: 5 },
];

beforeAll(async () => {
  await shared.db.collection('people').insertMany(PEOPLE as never[]);
  await shared.db.collection('people').createIndex({ team: 1 }, { name: 'team_1' });
});

describe('distinct', () => {
  test.each([
    ['team', {}, [null, 'blue', 'red']],
    ['team', { n: { $type: 'number' } }, ['blue', 'red']],
    ['n', {}, [1, 2, 'x']],
    ['tags', {}, ['a', 'b', ['c']]],
    ['pets.kind', {}, ['cat', 'dog']],
    ['missing', {}, []],
  ])('of %s where %j is %j', async (key, query, values) => {
    const found = await shared.db.collection('people').distinct(key, query);
    expect(found.map((value) => (value instanceof Int32 ? value.value : value))).toEqual(values);
  });

  test('on a missing collection is empty', async () => {
    expect(await shared.db.collection('nothing').distinct('a')).toEqual([]);
  });
});

describe('sizes', () => {
  const dataSize = PEOPLE.reduce((sum, doc) => sum + BSON.calculateObjectSize(doc), 0);

  test('collStats and $collStats count the documents and their BSON bytes', async () => {
    const stats = await shared.db.command({ collStats: 'people' });
    expect(stats).toMatchObject({
      ns: `${shared.db.databaseName}.people`,
      count: PEOPLE.length,
      size: dataSize,
      avgObjSize: Math.floor(dataSize / PEOPLE.length),
      nindexes: 2,
      capped: false,
    });
    expect(Object.keys(stats.indexSizes).sort()).toEqual(['_id_', 'team_1']);
    expect(stats.totalIndexSize).toBe(
      Object.values(stats.indexSizes as Record<string, number>).reduce((a, b) => a + b, 0),
    );
    const [viaStage] = await shared.db
      .collection('people')
      .aggregate([{ $collStats: { storageStats: {}, count: {} } }])
      .toArray();
    expect(viaStage).toMatchObject({
      ns: `${shared.db.databaseName}.people`,
      count: PEOPLE.length,
      storageStats: { count: PEOPLE.length, size: dataSize, nindexes: 2 },
    });
  });

  test('dbStats adds up its collections; scale divides sizes', async () => {
    const stats = await shared.db.stats();
    expect(stats).toMatchObject({
      db: shared.db.databaseName,
      collections: 1,
      objects: PEOPLE.length,
      dataSize,
      indexes: 2,
    });
    expect((await shared.db.stats({ scale: 1024 })).dataSize).toBe(Math.floor(dataSize / 1024));
  });

  test('listDatabases reports a size for this database', async () => {
    const { databases } = await shared.client.db('admin').admin().listDatabases();
    const mine = databases.find((entry) => entry.name === shared.db.databaseName);
    expect(mine?.sizeOnDisk).toBeGreaterThan(0);
    expect(mine?.empty).toBe(false);
  });

  test('collStats of a missing collection is NamespaceNotFound', async () => {
    const error = await shared.db.command({ collStats: 'nothing' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoServerError);
    expect((error as MongoServerError).code).toBe(26);
  });
});

describe('serverStatus', () => {
  test('reports uptime, connections, network and opcounters that move with the work done', async () => {
    const admin = shared.client.db('admin');
    const before = await admin.command({ serverStatus: 1 });
    expect(before.uptime).toBeGreaterThanOrEqual(0);
    expect(before.localTime).toBeInstanceOf(Date);
    expect(before.connections.current).toBeGreaterThanOrEqual(1);
    expect(before.connections.totalCreated).toBeGreaterThanOrEqual(before.connections.current);
    await shared.db.collection('counted').insertMany([{ a: 1 }, { a: 2 }, { a: 3 }]);
    await shared.db.collection('counted').find({}).toArray();
    const after = await admin.command({ serverStatus: 1 });
    expect(after.opcounters.insert - before.opcounters.insert).toBeGreaterThanOrEqual(3);
    expect(after.opcounters.query - before.opcounters.query).toBeGreaterThanOrEqual(1);
    expect(after.network.numRequests).toBeGreaterThan(before.network.numRequests);
    expect(after.network.bytesIn).toBeGreaterThan(before.network.bytesIn);
    expect(after.mem.resident).toBeGreaterThan(0);
  });
});

describe('$currentOp', () => {
  test('lists the operation asking, with its command', async () => {
    const marker = `currentOp-${Date.now()}`;
    const operations = await shared.client
      .db('admin')
      .aggregate([{ $currentOp: { allUsers: true } }, { $match: { 'command.comment': marker } }], {
        comment: marker,
      })
      .toArray();
    expect(operations).toHaveLength(1);
    expect(operations[0]).toMatchObject({ active: true, op: 'command', type: 'op' });
    expect(operations[0].command).toMatchObject({ aggregate: 1, comment: marker });
  });
});
