/**
 * The stand-in's retryable-write records where only the stand-in can be observed: a record
 * survives kill -9 (a retried write after the restart answers the stored reply and runs
 * nothing), endSessions forgets it, the onPrimaryTransactionalWrite fail point, and the
 * standalone mode refusing txnNumber with IllegalOperation (20) as mongod does; a crash keeps a
 * write and its record together or neither; records expire with their session (a clock the
 * test moves). The commands go over a raw connection where the lsid must be our own (the driver puts its own sessions'
 * lsid on every command).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BSON, Document, Long, MongoClient, UUID } from 'mongodb';
import { startStandin } from '../src';
import { Store } from '../src/engine/store';
import { RetryableWrites } from '../src/state/retryable-writes';
import { serializeOpMsg } from '../src/wire/messages';

/** Sends one OP_MSG command on a fresh connection and returns the reply document. */
function rawCommand(port: number, command: Document): Promise<Document> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    socket.setTimeout(10_000, () => socket.destroy(new Error('no reply within 10 s')));
    socket.on('error', reject);
    socket.on('connect', () => socket.write(serializeOpMsg(command, 1, 0)));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4 || received.length < received.readInt32LE(0)) return;
      socket.destroy();
      resolve(BSON.deserialize(received.subarray(21, received.readInt32LE(0))));
    });
  });
}

const clean = ({ $clusterTime: _c, operationTime: _o, ...reply }: Document) => reply;

function incrementOnce(lsid: Document, txnNumber: number): Document {
  return {
    update: 'counters',
    updates: [{ q: { _id: 'c' }, u: { $inc: { n: 1 } }, upsert: true }],
    lsid,
    txnNumber: Long.fromNumber(txnNumber),
    $db: 'retry',
  };
}

function startCli(dataDir: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', `${__dirname}/../src/cli.ts`, '--port', '0', '--data-dir', dataDir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`stand-in exited with ${code}: ${output}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const port = /mongodb:\/\/127\.0\.0\.1:(\d+)\//.exec(output)?.[1];
      if (port) resolve({ child, port: Number(port) });
    });
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

test('a write retried after kill -9 and a restart answers the stored reply and runs nothing', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'standin-retry-'));
  const lsid = { id: new UUID() };
  try {
    const first = await startCli(dir);
    const reply = await rawCommand(first.port, incrementOnce(lsid, 1));
    expect(reply).toMatchObject({ ok: 1, n: 1, upserted: [{ index: 0, _id: 'c' }] });
    await killed(first.child);

    const second = await startCli(dir);
    try {
      const retried = await rawCommand(second.port, incrementOnce(lsid, 1));
      expect(clean(retried)).toEqual(clean(reply));
      const client = await MongoClient.connect(`mongodb://127.0.0.1:${second.port}/`);
      const counters = client.db('retry').collection('counters');
      await expect(counters.findOne({})).resolves.toEqual({ _id: 'c', n: 1 });
      await expect(rawCommand(second.port, incrementOnce(lsid, 2))).resolves.toMatchObject({
        ok: 1,
        nModified: 1,
      });
      await expect(rawCommand(second.port, incrementOnce(lsid, 1))).resolves.toMatchObject({
        ok: 0,
        code: 225,
        codeName: 'TransactionTooOld',
      });
      await expect(counters.findOne({})).resolves.toEqual({ _id: 'c', n: 2 });
      await client.close();
    } finally {
      await killed(second.child);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

describe('one in-process stand-in', () => {
  let standin: Awaited<ReturnType<typeof startStandin>>;
  let client: MongoClient;

  beforeEach(async () => {
    standin = await startStandin({ log: () => undefined });
    client = await MongoClient.connect(standin.uri, { retryWrites: true });
  });
  afterEach(async () => {
    await client.close();
    await standin.stop();
  });

  const counter = () =>
    client
      .db('retry')
      .collection('counters')
      .findOne({ _id: 'c' as never });

  test('endSessions forgets the session: its txnNumber runs again', async () => {
    const lsid = { id: new UUID() };
    await rawCommand(standin.port, incrementOnce(lsid, 1));
    await rawCommand(standin.port, incrementOnce(lsid, 1));
    await expect(counter()).resolves.toEqual({ _id: 'c', n: 1 });
    await rawCommand(standin.port, { endSessions: [lsid], $db: 'admin' });
    await rawCommand(standin.port, incrementOnce(lsid, 1));
    await expect(counter()).resolves.toEqual({ _id: 'c', n: 2 });
  });

  test('onPrimaryTransactionalWrite closing the connection after the write: the driver retries, the write applies once', async () => {
    await client.db('admin').command({
      configureFailPoint: 'onPrimaryTransactionalWrite',
      mode: { times: 1 },
    });
    const counters = client.db('retry').collection('counters');
    await expect(
      counters.updateOne({ _id: 'c' as never }, { $inc: { n: 1 } }, { upsert: true }),
    ).resolves.toMatchObject({ upsertedCount: 1 });
    await expect(counter()).resolves.toEqual({ _id: 'c', n: 1 });
  });

  test('after a shutdown error from failCommand the driver finds the member again and its retry succeeds', async () => {
    // the monitor is streaming (awaitable hello, 10 s) once the first heartbeats are done
    const monitored = await MongoClient.connect(standin.uri, {
      appName: 'shutdown-notice',
      serverSelectionTimeoutMS: 2_000,
      serverMonitoringMode: 'stream',
      runtimeAdapters: { os }, // else, under jest, the handshake carries no appName
    });
    const counters = monitored.db('retry').collection('counters');
    await counters.insertOne({ _id: 'c' as never, n: 0 });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['update'], errorCode: 91, appName: 'shutdown-notice' },
    });
    // 91 marks the server Unknown; the retry needs it selectable again within 2 s
    await expect(
      counters.updateOne({ _id: 'c' as never }, { $inc: { n: 1 } }),
    ).resolves.toMatchObject({
      modifiedCount: 1,
    });
    await expect(counter()).resolves.toEqual({ _id: 'c', n: 1 });
    const off = await client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: 'off',
      data: { appName: 'shutdown-notice' },
    });
    expect(off.count).toBe(1);
    await monitored.close();
  });

  test('onPrimaryTransactionalWrite failing before commit writes and records nothing', async () => {
    await client.db('admin').command({
      configureFailPoint: 'onPrimaryTransactionalWrite',
      mode: { times: 1 },
      data: { closeConnection: false, failBeforeCommitExceptionCode: 91 },
    });
    const lsid = { id: new UUID() };
    await expect(rawCommand(standin.port, incrementOnce(lsid, 1))).resolves.toMatchObject({
      ok: 0,
      code: 91,
      errorLabels: ['RetryableWriteError'],
    });
    await expect(counter()).resolves.toBeNull();
    await expect(rawCommand(standin.port, incrementOnce(lsid, 1))).resolves.toMatchObject({
      ok: 1,
      n: 1,
    });
    await expect(counter()).resolves.toEqual({ _id: 'c', n: 1 });
  });
});

test('a standalone refuses txnNumber with IllegalOperation (20) and says no replica set', async () => {
  const standin = await startStandin({ replSet: null, log: () => undefined });
  try {
    expect(standin.uri).not.toMatch(/replicaSet/);
    const hello = await rawCommand(standin.port, { hello: 1, $db: 'admin' });
    expect(hello).toMatchObject({ isWritablePrimary: true });
    expect(hello.setName).toBeUndefined();
    expect(hello.operationTime).toBeUndefined();
    await expect(
      rawCommand(standin.port, { replSetGetStatus: 1, $db: 'admin' }),
    ).resolves.toMatchObject({ ok: 0, code: 76, codeName: 'NoReplicationEnabled' });
    await expect(
      rawCommand(standin.port, incrementOnce({ id: new UUID() }, 1)),
    ).resolves.toMatchObject({ ok: 0, code: 20, codeName: 'IllegalOperation' });
  } finally {
    await standin.stop();
  }
});

/** The newest journal file of `dir` and the byte offset of each record in it. */
async function journalRecords(dir: string): Promise<{ file: string; offsets: number[] }> {
  const newest = (await readdir(dir))
    .filter((name) => name.startsWith('journal.'))
    .sort()
    .pop()!;
  const file = path.join(dir, newest);
  const bytes = await readFile(file);
  const offsets: number[] = [];
  // the records end where the zeros written ahead of them begin (state/journal-file.ts)
  for (
    let offset = 0;
    offset < bytes.length && bytes.readUInt32LE(offset) > 0;
    offset += 8 + bytes.readUInt32LE(offset)
  )
    offsets.push(offset);
  return { file, offsets };
}

test('a write and its retryable-write record are one journal record: a crash keeps both or neither', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'standin-retry-torn-'));
  const lsid = { id: new UUID() };
  try {
    const first = await startCli(dir);
    await expect(rawCommand(first.port, incrementOnce(lsid, 1))).resolves.toMatchObject({
      ok: 1,
      n: 1,
    });
    await killed(first.child);
    const { file, offsets } = await journalRecords(dir);
    const bytes = await readFile(file);
    const last = offsets[offsets.length - 1];
    const end = last + 8 + bytes.readUInt32LE(last);
    const record = BSON.deserialize(bytes.subarray(last + 8, end));
    const written = (record.records as Document[]).map((change) => `${change.db}.${change.coll}`);
    expect(written).toEqual(expect.arrayContaining(['retry.counters', 'config.transactions']));
    // the crash tore that record (its second half never reached the zeros written ahead of
    // it): neither the write nor its record may survive
    await writeFile(file, bytes.fill(0, last + 8 + Math.floor((end - last - 8) / 2), end));

    const second = await startCli(dir);
    try {
      await expect(rawCommand(second.port, incrementOnce(lsid, 1))).resolves.toMatchObject({
        ok: 1,
        n: 1,
        upserted: [{ index: 0, _id: 'c' }],
      });
      await expect(rawCommand(second.port, incrementOnce(lsid, 1))).resolves.toMatchObject({
        ok: 1,
        n: 1,
        upserted: [{ index: 0, _id: 'c' }],
      });
      const client = await MongoClient.connect(`mongodb://127.0.0.1:${second.port}/`);
      await expect(client.db('retry').collection('counters').findOne({})).resolves.toEqual({
        _id: 'c',
        n: 1,
      });
      await client.close();
    } finally {
      await killed(second.child);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a record expires with its session: kept 29 minutes after its write, gone after 31', () => {
  const store = new Store();
  let now = Date.parse('2026-01-01T00:00:00Z');
  const writes = new RetryableWrites(store, true, () => now);
  const idle = { id: new UUID() };
  const busy = { id: new UUID() };
  let runs = 0;
  const write = () => ({ ok: 1, n: ++runs });
  const records = () => store.get('config', 'transactions')!;
  // a stored reply comes back as BSON values (n: Int32)
  const answered = (lsid: Document, txnNumber: number) =>
    Number(writes.run(incrementOnce(lsid, txnNumber), 'update', write).n);

  expect(answered(idle, 1)).toBe(1);
  now += 29 * 60_000;
  writes.run(incrementOnce(busy, 1), 'update', write);
  expect(records().byId(idle)).toBeDefined();
  expect(answered(idle, 1)).toBe(1);
  expect(runs).toBe(2);

  now += 2 * 60_000;
  writes.run(incrementOnce(busy, 2), 'update', write);
  expect(records().byId(idle)).toBeUndefined();
  expect(records().byId(busy)).toMatchObject({ txnNum: Long.fromNumber(2) });
  // the session's history is gone, as on mongod once it expired: the same txnNumber runs again
  expect(answered(idle, 1)).toBe(4);
});
