/**
 * No client can exhaust the stand-in: the cursor flood (finds with batchSize 1 whose
 * results are never read), idle cursors, too many connections, oversized and piled-up
 * messages, and a full heap each meet a bound, with mongod's error codes, while the server keeps
 * answering. Limits are configured small so the bounds are reached quickly.
 */
import net from 'node:net';
import { Long, MongoClient, MongoServerError } from 'mongodb';
import { RunningStandin, startStandin } from '../src';
import { DEFAULT_LIMITS, ServerLimits } from '../src/server';

const running: RunningStandin[] = [];
const clients: MongoClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close(true);
  for (const standin of running.splice(0)) await standin.stop();
});

async function standinWith(
  limits: Partial<ServerLimits>,
): Promise<{ standin: RunningStandin; client: MongoClient }> {
  const standin = await startStandin({ limits, log: () => undefined });
  running.push(standin);
  const client = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 3_000 });
  clients.push(client);
  return { standin, client };
}

function openCursorIds(client: MongoClient, count: number): Promise<Long[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const reply = await client.db('flood').command({ find: 'docs', batchSize: 1 });
      const id = (reply.cursor as { id: number | Long }).id; // the driver promotes Int64s that fit
      return typeof id === 'number' ? Long.fromNumber(id) : id;
    }),
  );
}

function getMore(client: MongoClient, id: Long) {
  return client.db('flood').command({ getMore: id, collection: 'docs', batchSize: 1 });
}

test('the cursor flood: many finds with batchSize 1 never read keep the held documents bounded and the server answering', async () => {
  const documents = 20_000;
  const { standin, client } = await standinWith({
    cursors: { ...DEFAULT_LIMITS.cursors, maxHeldDocuments: 50_000 },
  });
  const docs = client.db('flood').collection<{ _id: number; pad: string }>('docs');
  for (let start = 0; start < documents; start += 1_000) {
    await docs.insertMany(
      Array.from({ length: 1_000 }, (_, i) => ({ _id: start + i, pad: 'x'.repeat(100) })),
    );
  }
  const ids: Long[] = [];
  for (let round = 0; round < 10; round++) ids.push(...(await openCursorIds(client, 30)));
  ids.push(...(await openCursorIds(client, 1)));
  const usage = standin.cursorUsage();
  expect(usage.heldDocuments).toBeLessThanOrEqual(50_000);
  expect(usage.cursors).toBeLessThanOrEqual(2);
  await expect(client.db('flood').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
  const newest = await getMore(client, ids[ids.length - 1]);
  expect((newest.cursor as { nextBatch: unknown[] }).nextBatch).toEqual([
    { _id: 1, pad: 'x'.repeat(100) },
  ]);
  await expect(getMore(client, ids[0])).rejects.toMatchObject({ code: 43 });
});

test('a client that keeps reading keeps its cursor while another floods', async () => {
  const { standin, client } = await standinWith({
    cursors: { ...DEFAULT_LIMITS.cursors, maxCursors: 5 },
  });
  await client
    .db('flood')
    .collection<{ _id: number }>('docs')
    .insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: i })));
  const [reader] = await openCursorIds(client, 1);
  for (let round = 0; round < 10; round++) {
    await openCursorIds(client, 2);
    await getMore(client, reader);
  }
  expect(standin.cursorUsage().cursors).toBeLessThanOrEqual(5);
});

test('a result larger than the whole cursor budget is refused with ExceededMemoryLimit', async () => {
  const { client } = await standinWith({
    cursors: { ...DEFAULT_LIMITS.cursors, maxHeldDocuments: 10 },
  });
  await client
    .db('flood')
    .collection<{ _id: number }>('docs')
    .insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i })));
  await expect(openCursorIds(client, 1)).rejects.toMatchObject({ code: 146 });
  await expect(
    client.db('flood').collection('docs').find({}).batchSize(100).toArray(),
  ).resolves.toHaveLength(50);
});

test('idle cursors expire as in mongod (cursorTimeoutMillis)', async () => {
  const { standin, client } = await standinWith({
    cursors: { ...DEFAULT_LIMITS.cursors, idleTimeoutMs: 200 },
  });
  await client
    .db('flood')
    .collection<{ _id: number }>('docs')
    .insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
  const [id] = await openCursorIds(client, 1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(standin.cursorUsage().cursors).toBe(0);
  await expect(getMore(client, id)).rejects.toMatchObject({ code: 43 });
});

/** Resolves true when the stand-in closes a fresh connection (after `bytes`, if given). */
function closedByServer(port: number, bytes?: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => bytes && socket.write(bytes));
    socket.resume(); // read, so the server's close is seen
    const timer = setTimeout(() => {
      resolve(false);
      socket.destroy();
    }, 1_000);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function connectRaw(port: number): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', () => undefined);
    socket.resume(); // read, so the server's close is seen
  });
}

test('connections beyond maxConnections are closed at once; the ones open keep working', async () => {
  const { standin, client } = await standinWith({ maxConnections: 4 });
  await client.db('c').command({ ping: 1 });
  const held: net.Socket[] = [];
  let refused = 0;
  for (let attempt = 0; attempt < 8; attempt++) {
    const socket = await connectRaw(standin.port);
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 300);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (closed) refused++;
    else held.push(socket);
  }
  expect(held.length).toBeLessThanOrEqual(4);
  expect(refused).toBeGreaterThanOrEqual(4);
  await expect(client.db('c').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
  for (const socket of held) socket.destroy();
});

function header(declaredLength: number): Buffer {
  const bytes = Buffer.alloc(16);
  bytes.writeInt32LE(declaredLength, 0);
  bytes.writeInt32LE(2013, 12);
  return bytes;
}

test('a message above maxMessageBytes, and incomplete messages piling up past maxBufferedBytes, close their connection', async () => {
  const { standin, client } = await standinWith({
    maxMessageBytes: 1024 * 1024,
    maxBufferedBytes: 512 * 1024,
  });
  await expect(closedByServer(standin.port, header(2 * 1024 * 1024))).resolves.toBe(true);
  const partial = Buffer.concat([header(900 * 1024), Buffer.alloc(300 * 1024)]);
  const first = await connectRaw(standin.port);
  first.write(partial);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await expect(closedByServer(standin.port, partial)).resolves.toBe(true);
  await expect(client.db('c').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
  first.destroy();
});

test('above the memory limit writes are refused with ExceededMemoryLimit; reads and deletes still work', async () => {
  const { client } = await standinWith({ memoryLimitBytes: 1 });
  const error = await client
    .db('m')
    .collection<{ _id: number }>('c')
    .insertOne({ _id: 1 })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MongoServerError);
  expect((error as MongoServerError).code).toBe(146);
  await expect(client.db('m').collection('c').find({}).toArray()).resolves.toEqual([]);
  await expect(client.db('m').collection('c').deleteMany({})).resolves.toMatchObject({
    deletedCount: 0,
  });
});
