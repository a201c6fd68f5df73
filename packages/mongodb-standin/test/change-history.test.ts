/**
 * The stand-in's change history (its oplog): resuming a change stream across a restart of a
 * data directory, after a clean stop and after kill -9, misses nothing and repeats nothing; the
 * history is bounded and a resume point that fell off it is refused as mongod refuses one
 * (ChangeStreamHistoryLost, 286); a token from another server is refused; a transaction's
 * changes (the hook transactions commit through) share one cluster time and carry lsid and
 * txnNumber; update descriptions are mongod's.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { Long, MongoClient, ResumeToken, Timestamp } from 'mongodb';
import { startStandin } from '../src';
import { Store } from '../src/engine/store';
import { eachChange } from '../src/engine/apply-change';
import { ChangeHistory } from '../src/state/change-history';
import { ChangeStream } from '../src/state/change-stream';
import { updateDocument } from '../src/engine/writes';
import { Document } from '../src/engine/values';
import { freshDataDir } from './data-dir';

const dataDir = freshDataDir('standin-changes-');

async function numbersAfter(uri: string, token: ResumeToken, count: number): Promise<number[]> {
  const client = await MongoClient.connect(uri);
  const stream = client.db('t').collection('c').watch([], { resumeAfter: token });
  try {
    const numbers: number[] = [];
    while (numbers.length < count) {
      const event = (await stream.next()) as unknown as { fullDocument: { n: number } };
      numbers.push(event.fullDocument.n);
    }
    return numbers;
  } finally {
    await stream.close();
    await client.close();
  }
}

/** Inserts n = from..to and returns the token of the event of n = tokenAt. */
async function insertAndTakeToken(
  uri: string,
  from: number,
  to: number,
  tokenAt: number,
): Promise<ResumeToken> {
  const client = await MongoClient.connect(uri);
  const coll = client.db('t').collection('c');
  const stream = coll.watch();
  try {
    await stream.tryNext();
    for (let n = from; n <= to; n++) await coll.insertOne({ n });
    for (;;) {
      const event = (await stream.next()) as unknown as { fullDocument: { n: number } };
      if (event.fullDocument.n === tokenAt) return stream.resumeToken;
    }
  } finally {
    await stream.close();
    await client.close();
  }
}

test('a stream resumes across a clean restart of the data directory, over many journal generations', async () => {
  const first = await startStandin({
    dataDir: dataDir.path,
    snapshotAfterBytes: 2 * 1024,
    log: () => undefined,
  });
  const token = await insertAndTakeToken(first.uri, 1, 200, 50);
  await first.stop();
  const second = await startStandin({
    dataDir: dataDir.path,
    snapshotAfterBytes: 2 * 1024,
    log: () => undefined,
  });
  try {
    const client = await MongoClient.connect(second.uri);
    for (let n = 201; n <= 210; n++) await client.db('t').collection('c').insertOne({ n });
    await client.close();
    expect(await numbersAfter(second.uri, token, 160)).toEqual(
      Array.from({ length: 160 }, (_, i) => 51 + i),
    );
  } finally {
    await second.stop();
  }
});

test('a stream resumes after kill -9 of the stand-in process', async () => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', `${__dirname}/../src/cli.ts`, '--port', '0', '--data-dir', dataDir.path],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const uri = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`stand-in exited with ${code}: ${output}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /mongodb:\/\/127\.0\.0\.1:\d+\//.exec(output)?.[0];
      if (found) resolve(found);
    });
  });
  const token = await insertAndTakeToken(uri, 1, 20, 5);
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
  const restarted = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  try {
    expect(await numbersAfter(restarted.uri, token, 15)).toEqual(
      Array.from({ length: 15 }, (_, i) => 6 + i),
    );
  } finally {
    await restarted.stop();
  }
});

test('the history is bounded: a resume point that fell off it is ChangeStreamHistoryLost (286), a later one still resumes', async () => {
  const standin = await startStandin({ limits: { changeHistoryBytes: 64 * 1024 } });
  const client = await MongoClient.connect(standin.uri);
  try {
    const early = await insertAndTakeToken(standin.uri, 1, 3, 1);
    const coll = client.db('t').collection('c');
    await coll.insertMany(
      Array.from({ length: 2_000 }, (_, i) => ({ n: 4 + i, pad: 'x'.repeat(100) })),
    );
    const late = await insertAndTakeToken(standin.uri, 10_000, 10_002, 10_000);
    const lost = coll.watch([], { resumeAfter: early });
    await expect(lost.tryNext()).rejects.toMatchObject({
      code: 286,
      codeName: 'ChangeStreamHistoryLost',
    });
    await lost.close();
    expect(await numbersAfter(standin.uri, late, 2)).toEqual([10_001, 10_002]);
  } finally {
    await client.close();
    await standin.stop();
  }
});

test('a token for a time before the history began is 286; one naming a change the history lacks is 280', async () => {
  const standin = await startStandin();
  const client = await MongoClient.connect(standin.uri);
  try {
    const real = (await insertAndTakeToken(standin.uri, 1, 2, 1)) as { _data: string };
    const hex = (value: number) => value.toString(16).toUpperCase().padStart(8, '0');
    const seconds = parseInt(real._data.slice(2, 10), 16);
    const before = { _data: `82${hex(seconds - 60)}${real._data.slice(10)}` };
    const absent = { _data: `${real._data.slice(0, 20)}${hex(5)}00` };
    const coll = client.db('t').collection('c');
    for (const [token, code] of [
      [before, 286],
      [absent, 280],
    ] as const) {
      const stream = coll.watch([], { resumeAfter: token });
      await expect(stream.tryNext()).rejects.toMatchObject({ code });
      await stream.close();
    }
  } finally {
    await client.close();
    await standin.stop();
  }
});

function historyOf(store: Store): ChangeHistory {
  const history = new ChangeHistory(1024 * 1024, store.clock.now());
  store.observe((change) => eachChange(change, (one) => history.append(one)));
  return history;
}

function streamOn(history: ChangeHistory, store: Store): ChangeStream {
  return new ChangeStream(
    history,
    {
      scope: { db: 'd', coll: 'c' },
      fullDocument: 'default',
      fullDocumentBeforeChange: 'off',
      lookup: () => null,
    },
    [],
    {},
    { kind: 'startAtOperationTime', ts: history.start },
    store.clock.now(),
  );
}

test("a transaction's changes share one cluster time and carry its lsid and txnNumber", () => {
  const store = new Store();
  const history = historyOf(store);
  const { collection } = store.obtain('d', 'c');
  const lsid = { id: 'session' };
  store.commitAtOnce({ lsid, txnNumber: Long.fromNumber(7) }, () => {
    collection.insert({ _id: 1 });
    collection.insert({ _id: 2 });
  });
  collection.insert({ _id: 3 });
  const { batch } = streamOn(history, store).read(10);
  expect(batch.map((event) => (event.documentKey as Document)._id)).toEqual([1, 2, 3]);
  expect(batch[0].clusterTime).toEqual(batch[1].clusterTime);
  expect(batch[0]).toMatchObject({ lsid, txnNumber: Long.fromNumber(7) });
  expect(batch[2]).not.toHaveProperty('lsid');
  expect((batch[0]._id as Document)._data).not.toEqual((batch[1]._id as Document)._data);
});

test.each([
  [
    '$set of an existing and a new nested field',
    { a: 1, b: { c: 1 } },
    { $set: { a: 2, 'b.d': 1, 'x.y.z': 1 } },
    {
      updatedFields: { a: 2, 'b.d': 1, x: { y: { z: 1 } } },
      removedFields: [],
      truncatedArrays: [],
    },
  ],
  [
    '$unset of a field and of an array element',
    { a: 1, arr: [1, 2] },
    { $unset: { a: '', 'arr.1': '', missing: '' } },
    { updatedFields: { 'arr.1': null }, removedFields: ['a'], truncatedArrays: [] },
  ],
  [
    '$set to the value it had',
    { a: 1, b: 2 },
    { $set: { a: 1, b: 3 } },
    { updatedFields: { b: 3 }, removedFields: [], truncatedArrays: [] },
  ],
  [
    'a pipeline shortening an array',
    { a: 1, array: ['foo', { a: 'bar' }, 1, 2, 3] },
    [{ $set: { array: ['foo', { a: 'bar' }] } }],
    { updatedFields: {}, removedFields: [], truncatedArrays: [{ field: 'array', newSize: 2 }] },
  ],
  [
    'a pipeline changing a nested field and removing one',
    { a: { b: 1, c: 'long enough value' }, d: 'another long value to keep the delta small' },
    [{ $set: { 'a.b': 2 } }, { $unset: 'a.c' }],
    { updatedFields: { 'a.b': 2 }, removedFields: ['a.c'], truncatedArrays: [] },
  ],
])('update description: %s', (_name, before, update, expected) => {
  const store = new Store();
  const history = historyOf(store);
  const { collection } = store.obtain('d', 'c');
  const doc = collection.insert({ _id: 1, ...before });
  updateDocument(collection, doc, update);
  const { batch } = streamOn(history, store).read(10);
  expect(batch[1]).toMatchObject({ operationType: 'update', updateDescription: expected });
});

test('an update that changes nothing makes no event, a pipeline rewriting most of a document is a replace', () => {
  const store = new Store();
  const history = historyOf(store);
  const { collection } = store.obtain('d', 'c');
  const doc = collection.insert({ _id: 1, a: 1 });
  expect(updateDocument(collection, doc, { $set: { a: 1 } })).toBe(doc);
  updateDocument(collection, doc, [{ $replaceWith: { _id: 1, b: 'all new', c: 'fields' } }]);
  const { batch } = streamOn(history, store).read(10);
  expect(batch.map((event) => event.operationType)).toEqual(['insert', 'replace']);
});

test('a rename and changeStreamPreAndPostImages survive a restart, from the journal and from a snapshot', async () => {
  // a copy of the directory taken while the first server runs is what a crash leaves (every
  // reply waited for its fsync): the second replays its journal; stopped, the first snapshots
  // and the journal is empty. (One process cannot open a directory twice: state/data-lock.ts.)
  for (const crashed of [true, false]) {
    const sub = await mkdtemp(path.join(dataDir.path, 'run-'));
    const first = await startStandin({ dataDir: sub, log: () => undefined });
    const client = await MongoClient.connect(first.uri);
    const db = client.db('t');
    await db.createCollection('before', { changeStreamPreAndPostImages: { enabled: true } });
    await db.collection('before').insertOne({ _id: 1 as never, v: 1 });
    await db.collection('before').rename('after');
    await client.close();
    const reopened = crashed ? `${sub}-crashed` : sub;
    if (crashed) await cp(sub, reopened, { recursive: true });
    else await first.stop();
    const second = await startStandin({ dataDir: reopened, log: () => undefined });
    expect(second.recovery!.journalRecords > 0).toBe(crashed);
    const reader = await MongoClient.connect(second.uri);
    try {
      const after = reader.db('t').collection('after');
      const stream = after.watch([], { fullDocumentBeforeChange: 'required' });
      await stream.tryNext();
      await after.updateOne({ _id: 1 as never }, { $set: { v: 2 } });
      await expect(stream.next()).resolves.toMatchObject({
        fullDocumentBeforeChange: { _id: 1, v: 1 },
      });
      await stream.close();
      expect(
        await reader
          .db('t')
          .listCollections()
          .map((c) => c.name)
          .toArray(),
      ).toEqual(['after']);
    } finally {
      await reader.close();
      await second.stop();
      if (crashed) await first.stop();
    }
  }
});

test('a rename onto an existing collection (dropTarget) is one change: one rename event, the old target gone', () => {
  const store = new Store();
  const history = historyOf(store);
  store.obtain('d', 'c').collection.insert({ _id: 1, from: 'source' });
  store.obtain('d', 'target').collection.insert({ _id: 2, from: 'target' });
  const start = history.end;
  expect(store.rename('d', 'c', 'target', true)).toBe(true);
  expect(history.end - start).toBe(1);
  expect(history.at(start)).toMatchObject({
    op: 'renameCollection',
    to: 'target',
    dropTarget: true,
  });
  expect([...store.get('d', 'target')!.all()]).toEqual([{ _id: 1, from: 'source' }]);
  expect(store.get('d', 'c')).toBeUndefined();
});

test('a waiting getMore is woken by the next change, and for good when the server stops', async () => {
  const store = new Store();
  const history = historyOf(store);
  const woken = history.waitForChanges(600_000);
  store.obtain('d', 'c').collection.insert({ _id: 1 });
  await expect(woken).resolves.toBe(true); // 600 s would outlast the test's timeout
  const stopping = history.waitForChanges(600_000);
  history.close();
  await expect(stopping).resolves.toBe(false);
  await expect(history.waitForChanges(600_000)).resolves.toBe(false);
}, 10_000);

test('startAtOperationTime in the future delivers only changes from that time on', () => {
  const store = new Store();
  const history = historyOf(store);
  const { collection } = store.obtain('d', 'c');
  collection.insert({ _id: 1 });
  const now = store.clock.now();
  // a clock far ahead of the wall clock stamps (now + 1000 s, 1), (…, 2), (…, 3) whatever the time
  store.clock.advanceTo(new Timestamp({ t: now.high + 1000, i: 0 }));
  const later = new Timestamp({ t: now.high + 1000, i: 2 });
  const stream = new ChangeStream(
    history,
    {
      scope: { db: 'd', coll: 'c' },
      fullDocument: 'default',
      fullDocumentBeforeChange: 'off',
      lookup: () => null,
    },
    [],
    {},
    { kind: 'startAtOperationTime', ts: later },
    now,
  );
  for (const id of [2, 3, 4]) collection.insert({ _id: id });
  const { batch } = stream.read(10);
  expect(batch.map((event) => (event.documentKey as Document)._id)).toEqual([3, 4]);
});

test('a standalone refuses change streams with 40573, as mongod does', async () => {
  const standin = await startStandin({ replSet: null });
  const client = await MongoClient.connect(standin.uri);
  try {
    const stream = client.db('t').collection('c').watch();
    await expect(stream.tryNext()).rejects.toMatchObject({ code: 40573 });
    await stream.close();
  } finally {
    await client.close();
    await standin.stop();
  }
});

test('killing a change stream cursor ends the getMore waiting on it at once (CursorKilled)', async () => {
  const standin = await startStandin();
  const client = await MongoClient.connect(standin.uri);
  try {
    const db = client.db('t');
    const opened = await db.command(
      { aggregate: 'c', pipeline: [{ $changeStream: {} }], cursor: {} },
      { promoteLongs: false },
    );
    const id = opened.cursor.id as Long;
    const waiting = db
      .command({ getMore: id, collection: 'c', maxTimeMS: 600_000 })
      .catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await db.command({ killCursors: 'c', cursors: [id] });
    expect(await waiting).toMatchObject({ code: 237 }); // 600 s would outlast the test's timeout
  } finally {
    await client.close();
    await standin.stop();
  }
}, 20_000);

test('after the history forgets changes the journal could not write, a stream that read them sees every later change', () => {
  const store = new Store();
  const history = historyOf(store);
  const { collection } = store.obtain('d', 'c');
  collection.insert({ _id: 1 });
  const stream = streamOn(history, store);
  expect(stream.read(10).batch).toHaveLength(1);
  const kept = store.clock.now();
  collection.insert({ _id: 2 });
  collection.insert({ _id: 3 });
  expect(stream.read(10).batch).toHaveLength(2); // read, but the reply carrying them failed
  history.forgetAfter(kept);
  collection.insert({ _id: 4 });
  const { batch } = stream.read(10);
  expect(batch.map((event) => (event.documentKey as Document)._id)).toEqual([4]);
});

test("a transaction's events are kept across a restart: one cluster time, its lsid and txnNumber", async () => {
  const first = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const token = await insertAndTakeToken(first.uri, 1, 1, 1);
  const client = await MongoClient.connect(first.uri);
  const session = client.startSession();
  try {
    await session.withTransaction(async () => {
      const coll = client.db('t').collection('c');
      await coll.insertOne({ n: 2 }, { session });
      await coll.insertOne({ n: 3 }, { session });
    });
  } finally {
    await session.endSession();
    await client.close();
  }
  await first.stop();
  const second = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const reader = await MongoClient.connect(second.uri);
  const stream = reader.db('t').collection('c').watch([], { resumeAfter: token });
  try {
    const events = [await stream.next(), await stream.next()] as unknown as Array<{
      fullDocument: { n: number };
      clusterTime: Timestamp;
      lsid?: unknown;
      txnNumber?: unknown;
    }>;
    expect(events.map((event) => event.fullDocument.n)).toEqual([2, 3]);
    expect(events[0].clusterTime.equals(events[1].clusterTime)).toBe(true);
    for (const event of events) {
      expect(event.lsid).toBeDefined();
      expect(event.txnNumber).toBeDefined();
    }
  } finally {
    await stream.close();
    await reader.close();
    await second.stop();
  }
});
