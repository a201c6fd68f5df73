/** The socket server: blocked fail points block one connection only and honour maxTimeMS. */
import os from 'node:os';
import { MongoClient, MongoServerError } from 'mongodb';
import { RunningStandin, startStandin } from '../src';

let standin: RunningStandin;
let admin: MongoClient;
let blocked: MongoClient;

beforeAll(async () => {
  standin = await startStandin();
  admin = await MongoClient.connect(standin.uri, { runtimeAdapters: { os } });
  blocked = await MongoClient.connect(standin.uri, { appName: 'blocked', runtimeAdapters: { os } });
});

afterAll(async () => {
  await blocked.close();
  await admin.close();
  await standin.stop();
});

test('a blocked command holds only its own connection: other clients are served meanwhile', async () => {
  await admin.db('admin').command({
    configureFailPoint: 'failCommand',
    mode: { times: 1 },
    data: { failCommands: ['find'], blockConnection: true, blockTimeMS: 1_000, appName: 'blocked' },
  });
  let blockedDone = false;
  const slow = blocked
    .db('s')
    .collection('c')
    .findOne({})
    .then(() => (blockedDone = true));
  await admin
    .db('s')
    .collection('c')
    .insertOne({ _id: 1 as never });
  await expect(admin.db('s').collection('c').findOne({})).resolves.toEqual({ _id: 1 });
  expect(blockedDone).toBe(false);
  await slow;
  expect(blockedDone).toBe(true);
});

test('maxTimeMS shorter than the block ends the command with MaxTimeMSExpired', async () => {
  await admin.db('admin').command({
    configureFailPoint: 'failCommand',
    mode: { times: 1 },
    data: { failCommands: ['find'], blockConnection: true, blockTimeMS: 5_000, appName: 'blocked' },
  });
  const error = await blocked
    .db('s')
    .collection('c')
    .findOne({}, { maxTimeMS: 200 })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MongoServerError);
  expect((error as MongoServerError).code).toBe(50);
});

test.each([
  ['a one-member replica set', {}],
  ['a standalone', { replSet: null }],
])(
  '%s streams its monitors: hello carries a topologyVersion and awaitable hellos are answered',
  async (_mode, options) => {
    // mongod 4.4+ in either mode: drivers in serverMonitoringMode stream (or auto) then get
    // awaited heartbeats instead of polling.
    const server = await startStandin({ log: () => undefined, ...options });
    const client = new MongoClient(server.uri, {
      heartbeatFrequencyMS: 500,
      serverMonitoringMode: 'stream',
      directConnection: true,
    });
    try {
      // Bounded: false when no awaited heartbeat comes within 10 s (a poll comes every 0.5 s).
      const awaited = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 10_000).unref();
        client.on('serverHeartbeatSucceeded', (event) => {
          if (!event.awaited) return;
          clearTimeout(timer);
          resolve(true);
        });
      });
      await client.connect();
      const hello = await client.db('admin').command({ hello: 1 });
      expect(hello.topologyVersion).toMatchObject({ counter: expect.anything() });
      await expect(awaited).resolves.toBe(true);
    } finally {
      await client.close();
      await server.stop();
    }
  },
);
