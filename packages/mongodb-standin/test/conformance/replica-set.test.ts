/**
 * The test database as a one-member replica set, as real MongoDB (mongodb-memory-server's
 * replica set, or TEST_MONGO=uri on a set) and the stand-in both present it: hello names the set
 * and its primary, every reply carries $clusterTime and operationTime, writes move
 * operationTime forward, a causally consistent session sends afterClusterTime and reads its
 * own write, NotPrimary errors carry the member's topologyVersion (shutdown errors do not), and
 * replSetGetStatus shows the one member as a healthy primary whose optime covers the last write.
 */
import { randomUUID } from 'node:crypto';
import { CommandStartedEvent, Document, MongoServerError, ObjectId, Timestamp } from 'mongodb';
import { connectTestClient } from '../support/db';
import { failCommandOff, useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_replica_set');

test('hello describes a one-member replica set whose one member is its writable primary', async () => {
  const hello = await shared.client.db('admin').command({ hello: 1 });
  expect(hello).toMatchObject({
    isWritablePrimary: true,
    secondary: false,
    setName: expect.any(String),
    logicalSessionTimeoutMinutes: 30,
  });
  expect(hello.hosts).toEqual([hello.me]);
  expect(hello.primary).toBe(hello.me);
  expect(hello.electionId).toBeInstanceOf(ObjectId);
  expect(hello.topologyVersion.processId).toBeInstanceOf(ObjectId);
  expect(hello.$clusterTime.clusterTime).toBeInstanceOf(Timestamp);
  expect(hello.operationTime).toBeInstanceOf(Timestamp);
});

test('each write answers a later operationTime, and reads answer one no earlier than the last write', async () => {
  const coll = shared.db.collection('clock');
  const times: Timestamp[] = [];
  for (let i = 0; i < 3; i++) {
    const reply = await shared.db.command({ insert: 'clock', documents: [{ i }] });
    times.push(reply.operationTime);
  }
  expect(times[1].greaterThan(times[0])).toBe(true);
  expect(times[2].greaterThan(times[1])).toBe(true);
  const read = await shared.db.command({ find: 'clock', filter: {} });
  expect(read.operationTime.greaterThanOrEqual(times[2])).toBe(true);
  expect(read.$clusterTime.clusterTime.greaterThanOrEqual(times[2])).toBe(true);
  await expect(coll.countDocuments()).resolves.toBe(3);
});

test('a causally consistent session reads its own write with afterClusterTime set to the write', async () => {
  const client = await connectTestClient({ monitorCommands: true });
  const started: CommandStartedEvent[] = [];
  client.on('commandStarted', (event) => started.push(event));
  try {
    const coll = client.db(shared.db.databaseName).collection('causal');
    const session = client.startSession({ causalConsistency: true });
    await coll.insertOne({ _id: 'mine' as never }, { session });
    const written = session.operationTime!;
    await expect(coll.findOne({ _id: 'mine' as never }, { session })).resolves.toEqual({
      _id: 'mine',
    });
    const find = started.find((event) => event.commandName === 'find')!;
    const readConcern = find.command.readConcern as Document;
    expect(readConcern.afterClusterTime).toEqual(written);
    await session.endSession();
  } finally {
    await client.close();
  }
});

test('a NotPrimary error carries the topologyVersion of hello; a shutdown error carries none', async () => {
  const appName = `topology-${randomUUID()}`;
  const faulty = await connectTestClient({ appName, retryReads: false });
  try {
    const hello = await shared.client.db('admin').command({ hello: 1 });
    const failFind = (errorCode: number) =>
      shared.client.db('admin').command({
        configureFailPoint: 'failCommand',
        mode: { times: 1 },
        data: { failCommands: ['find'], errorCode, appName },
      });
    const find = () =>
      faulty
        .db(shared.db.databaseName)
        .collection('topology')
        .findOne({})
        .catch((e: unknown) => e as MongoServerError);
    await failFind(10107);
    const notPrimary = (await find()) as MongoServerError;
    expect(notPrimary).toMatchObject({ code: 10107, codeName: 'NotWritablePrimary' });
    expect(notPrimary.errorResponse.topologyVersion).toEqual(hello.topologyVersion);
    await failFind(91);
    const shutdown = (await find()) as MongoServerError;
    expect(shutdown).toMatchObject({ code: 91, codeName: 'ShutdownInProgress' });
    expect(shutdown.errorResponse.topologyVersion).toBeUndefined();
  } finally {
    await failCommandOff(shared, appName);
    await faulty.close();
  }
});

test('replSetGetStatus: one healthy primary, itself the majority, its optime at the last write', async () => {
  const admin = shared.client.db('admin');
  const hello = await admin.command({ hello: 1 });
  const write = await shared.db.command({ insert: 'status', documents: [{ at: 'status' }] });
  const status = await admin.command({ replSetGetStatus: 1 });
  expect(status).toMatchObject({
    ok: 1,
    set: hello.setName,
    myState: 1,
    syncSourceHost: '',
    syncSourceId: -1,
    majorityVoteCount: 1,
    writeMajorityCount: 1,
    votingMembersCount: 1,
    writableVotingMembersCount: 1,
  });
  expect(Number(status.term)).toBeGreaterThanOrEqual(1);
  expect(status.date).toBeInstanceOf(Date);
  const { optimes } = status;
  for (const name of ['appliedOpTime', 'durableOpTime', 'lastCommittedOpTime']) {
    expect(optimes[name].ts).toBeInstanceOf(Timestamp);
    expect(optimes[name].ts.greaterThanOrEqual(write.operationTime)).toBe(true);
  }
  expect(status.members).toHaveLength(1);
  const [member] = status.members;
  expect(member).toMatchObject({
    name: hello.me,
    health: 1,
    state: 1,
    stateStr: 'PRIMARY',
    self: true,
    syncSourceHost: '',
  });
  expect(member.optime.ts.greaterThanOrEqual(write.operationTime)).toBe(true);
  expect(member.optimeDate.getTime()).toBe(member.optime.ts.t * 1000);
  expect(member.electionTime).toBeInstanceOf(Timestamp);
  expect(member.electionTime.lessThanOrEqual(member.optime.ts)).toBe(true);
  expect(member.electionDate).toBeInstanceOf(Date);
  expect(member.uptime).toBeGreaterThanOrEqual(0);
});

test('replSetGetStatus runs only on the admin database', async () => {
  await expect(shared.db.command({ replSetGetStatus: 1 })).rejects.toMatchObject({
    code: 13,
    codeName: 'Unauthorized',
    message: 'replSetGetStatus may only be run against the admin database.',
  });
});
