/**
 * A stand-in with a data directory keeps what it acknowledged: a child process (the CLI, as
 * `npm run standin -- --data-dir` starts it) is SIGKILLed under 32 concurrent clients of the real
 * driver, and restarted on the same directory; torn and corrupt journal records, snapshot
 * rotation, a crash while a snapshot is written, and a journal that cannot write are covered
 * in-process; so are group commit (concurrent writes share fsyncs; a batch stays open while
 * every turn of the event loop appends, at most BATCH_OPEN_MS; what arrives during an fsync waits
 * for the next batch). Where an fsync runs is journal-file.test.ts. A full
 * filesystem is full-disk.test.ts; simultaneous starts, data-lock.test.ts.
 */
import { closeSync, openSync } from 'node:fs';
import { appendFile, readdir, readFile, readlink, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Long, MongoClient } from 'mongodb';
import { startStandin } from '../src';
import { Store } from '../src/engine/store';
import { BATCH_OPEN_MS, Journal } from '../src/state/journal';
import { JournalFile, PREALLOCATE_BYTES } from '../src/state/journal-file';
import { decodeRecords } from '../src/state/record-file';
import { killed, killUnderLoadThenRead, startCli } from './cli-process';
import { freshDataDir } from './data-dir';

const CLIENTS = 32;

const dataDir = freshDataDir('standin-durability-');

/** the driver reads an Int64 that fits as a number */
interface Counter {
  _id: string;
  seq: number | Long;
}

interface User {
  _id: number;
  email: string;
}

test('SIGKILL under 32 clients loses no acknowledged user or counter value; ids continue above every stored one', async () => {
  const first = await startCli(dataDir.path);
  expect(first.line).toMatch(/not MongoDB; replica set rs0; data kept in/);
  const client = await MongoClient.connect(first.uri, {
    maxPoolSize: CLIENTS,
    retryWrites: false,
    serverSelectionTimeoutMS: 2_000,
  });
  const db = client.db('durable');
  await db.collection('users').createIndex({ email: 1 }, { unique: true });
  const acknowledgedUsers = new Set<number>();
  let highestCounter = 0;
  const worker = async (stopped: () => boolean) => {
    while (!stopped()) {
      try {
        const counter = await db
          .collection<Counter>('counters')
          .findOneAndUpdate(
            { _id: 'userid' },
            { $inc: { seq: Long.ONE } },
            { upsert: true, returnDocument: 'after' },
          );
        const id = Number(counter!.seq);
        highestCounter = Math.max(highestCounter, id);
        await db.collection<User>('users').insertOne({ _id: id, email: `u${id}@example.com` });
        acknowledgedUsers.add(id);
      } catch {
        return; // the server died under us: what was acknowledged before is what counts
      }
    }
  };
  await killUnderLoadThenRead({
    first,
    dataDir: dataDir.path,
    client,
    clients: CLIENTS,
    worker,
    acknowledged: () => acknowledgedUsers.size,
    atLeast: 300,
    read: async (rdb) => {
      const stored = await rdb.collection<User>('users').find({}).toArray();
      const storedIds = new Set(stored.map((user) => user._id));
      for (const id of acknowledgedUsers) expect(storedIds.has(id)).toBe(true);
      const counter = await rdb.collection<Counter>('counters').findOne({ _id: 'userid' });
      const seq = Number(counter!.seq);
      expect(seq).toBeGreaterThanOrEqual(highestCounter);
      expect(Math.max(...storedIds)).toBeLessThanOrEqual(seq);
      const next = await rdb
        .collection<Counter>('counters')
        .findOneAndUpdate(
          { _id: 'userid' },
          { $inc: { seq: Long.ONE } },
          { returnDocument: 'after' },
        );
      expect(Number(next!.seq)).toBeGreaterThan(Math.max(...storedIds));
      await expect(
        rdb.collection<User>('users').insertOne({ _id: 0, email: stored[0].email }),
      ).rejects.toMatchObject({ code: 11000 });
    },
  });
});

async function journalFiles(): Promise<string[]> {
  return (await readdir(dataDir.path)).filter((name) => name.startsWith('journal.')).sort();
}

/** Three users written through the CLI, which is then SIGKILLed: they are only in the journal. */
async function crashAfterThreeUsers(): Promise<string> {
  const { child, uri } = await startCli(dataDir.path);
  const client = await MongoClient.connect(uri);
  for (const id of [1, 2, 3])
    await client
      .db('t')
      .collection<User>('users')
      .insertOne({ _id: id, email: `${id}@x` });
  await client.close();
  await killed(child);
  return path.join(dataDir.path, (await journalFiles()).pop()!);
}

test('a torn last journal record is dropped; everything acknowledged before it is kept', async () => {
  const journal = await crashAfterThreeUsers();
  const whole = await readFile(journal);
  // an append-only journal (before 0.4 preallocated them) torn at its end
  const recordsEnd = decodeRecords(whole, journal).validLength;
  await writeFile(journal, whole.subarray(0, recordsEnd));
  await appendFile(journal, whole.subarray(0, Math.floor(recordsEnd / 2)));

  const reopened = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  expect(reopened.recovery!.tornBytes).toBeGreaterThan(0);
  const reader = await MongoClient.connect(reopened.uri);
  await expect(reader.db('t').collection('users').countDocuments()).resolves.toBe(3);
  await reader.close();
  await reopened.stop();
});

test.each([
  ['the zeros written ahead of the records, as a crash leaves them', 0, 0],
  ['zeros past the first chunk (a crash while writing zeros ahead)', 0, PREALLOCATE_BYTES / 3],
  ['a record torn where it was written, then zeros', 40, 0],
])(
  'kill -9 leaves a preallocated journal: %s; a restart keeps every acknowledged record and trims the zeros',
  async (_, tornBytes, extraZeros) => {
    const journal = await crashAfterThreeUsers();
    const onDisk = await readFile(journal);
    expect(onDisk.length).toBe(PREALLOCATE_BYTES);
    const recordsEnd = decodeRecords(onDisk, journal).validLength;
    expect(onDisk.subarray(recordsEnd).every((byte) => byte === 0)).toBe(true);
    // a torn record: the first bytes of one (its header and 32 of its payload) where it went
    onDisk.copy(onDisk, recordsEnd, 0, tornBytes);
    await writeFile(journal, Buffer.concat([onDisk, Buffer.alloc(extraZeros)]));

    const logged: string[] = [];
    const reopened = await startStandin({
      dataDir: dataDir.path,
      log: (line) => logged.push(line),
    });
    try {
      expect(reopened.recovery!.tornBytes).toBe(tornBytes);
      expect(logged.some((line) => line.includes('torn'))).toBe(tornBytes > 0);
      expect((await stat(journal)).size).toBe(recordsEnd);
      const reader = await MongoClient.connect(reopened.uri);
      await expect(reader.db('t').collection('users').countDocuments()).resolves.toBe(3);
      await reader.close();
    } finally {
      await reopened.stop();
    }
  },
);

test('a corrupt record that is not the last one stops recovery with an error naming the file', async () => {
  const journal = await crashAfterThreeUsers();
  const bytes = await readFile(journal);
  bytes[12] ^= 0xff; // inside the first record's payload
  await writeFile(journal, bytes);
  await expect(startStandin({ dataDir: dataDir.path, log: () => undefined })).rejects.toThrow(
    /journal\.\d+: record at byte 0 fails its checksum/,
  );
});

test('snapshots bound the journal; concurrent writes across rotations all survive a restart', async () => {
  const standin = await startStandin({
    dataDir: dataDir.path,
    snapshotAfterBytes: 16 * 1024,
    // generations a snapshot contains are kept only as the change history's window
    limits: { changeHistoryBytes: 0 },
    log: () => undefined,
  });
  const client = await MongoClient.connect(standin.uri, { maxPoolSize: CLIENTS });
  const users = client.db('t').collection<User>('users');
  await users.createIndex({ email: 1 }, { unique: true });
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < 2_000) {
        const id = ++next;
        await users.insertOne({ _id: id, email: `${id}@x` });
      }
    }),
  );
  await users.deleteOne({ _id: 7 });
  await users.updateOne({ _id: 8 }, { $set: { email: 'eight@x' } });
  await client.close();
  await standin.stop();
  expect(await readdir(dataDir.path)).toContain('snapshot');
  expect((await journalFiles()).length).toBeLessThanOrEqual(2);

  const reopened = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const reader = await MongoClient.connect(reopened.uri);
  // the sessions' retryable-write records are documents too (config.transactions)
  const records = await reader.db('config').collection('transactions').countDocuments();
  expect(reopened.recovery).toMatchObject({ documents: 1_999 + records, journalRecords: 0 }); // a clean stop snapshots
  const again = reader.db('t').collection<User>('users');
  await expect(again.countDocuments()).resolves.toBe(1_999);
  await expect(again.findOne({ _id: 8 })).resolves.toEqual({ _id: 8, email: 'eight@x' });
  await expect(again.insertOne({ _id: 9_999, email: '9@x' })).rejects.toMatchObject({
    code: 11000,
  });
  await reader.close();
  await reopened.stop();
});

test('a crash while a snapshot is written (a partial snapshot.tmp) loses nothing', async () => {
  const standin = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const client = await MongoClient.connect(standin.uri);
  await client.db('t').collection<User>('users').insertOne({ _id: 1, email: '1@x' });
  await client.close();
  await standin.stop();
  await writeFile(path.join(dataDir.path, 'snapshot.tmp'), 'half a snapshot');

  const reopened = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const reader = await MongoClient.connect(reopened.uri);
  await expect(reader.db('t').collection<User>('users').findOne({ _id: 1 })).resolves.toEqual({
    _id: 1,
    email: '1@x',
  });
  await reader.close();
  await reopened.stop();
  expect(await readdir(dataDir.path)).not.toContain('snapshot.tmp');
});

test('a second live process cannot open the same data directory', async () => {
  const standin = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const other = await startCli(dataDir.path).catch((error: Error) => error);
  expect(other).toBeInstanceOf(Error);
  expect((other as Error).message).toMatch(new RegExp(`in use by process ${process.pid}`));
  await standin.stop();
});

/** The descriptor this process holds open on `file` (from /proc/self/fd). */
async function descriptorOf(file: string): Promise<number> {
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target === file) return Number(fd);
  }
  throw new Error(`${file} is not open`);
}

test('a journal that cannot write and cannot be cut back (a device, not a file) refuses every command until restart; a restart has what was acknowledged', async () => {
  const logged: string[] = [];
  const standin = await startStandin({ dataDir: dataDir.path, log: (line) => logged.push(line) });
  const client = await MongoClient.connect(standin.uri);
  const users = client.db('t').collection<User>('users');
  await users.insertOne({ _id: 1, email: '1@x' });
  // The journal's descriptor now points at /dev/full: the next write fails with ENOSPC, and
  // truncating back to the last good length fails too (a character device has no length).
  const fd = await descriptorOf(path.join(dataDir.path, (await journalFiles()).pop()!));
  closeSync(fd);
  expect(openSync('/dev/full', 'w')).toBe(fd);

  await expect(users.insertOne({ _id: 2, email: '2@x' })).rejects.toMatchObject({
    code: 14031,
    codeName: 'OutOfDiskSpace',
  });
  await expect(users.insertOne({ _id: 3, email: '3@x' })).rejects.toMatchObject({ code: 14031 });
  // memory may hold document 2, the disk does not: no reply may show it
  await expect(users.findOne({ _id: 2 })).rejects.toMatchObject({ code: 14031 });
  expect(logged.join('\n')).toMatch(/every command fails until the stand-in is restarted/);
  await client.close();
  await standin.stop();

  const reopened = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const reader = await MongoClient.connect(reopened.uri);
  await expect(reader.db('t').collection('users').find({}).toArray()).resolves.toEqual([
    { _id: 1, email: '1@x' },
  ]);
  await reader.close();
  await reopened.stop();
});

/**
 * Puts `wrap` around the journal file's fsync: it gets each call's number and the real fsync's
 * promise, and returns what the journal waits for. Returns the undo.
 */
function interceptDatasync(
  wrap: (call: number, synced: Promise<void>) => Promise<void>,
): () => void {
  const datasync = JournalFile.prototype.datasync;
  let calls = 0;
  const spy = jest.spyOn(JournalFile.prototype, 'datasync').mockImplementation(function (
    this: JournalFile,
  ) {
    return wrap(++calls, datasync.call(this));
  });
  return () => spy.mockRestore();
}

/** Counts the journal's fsyncs, each of which still runs; `restore` ends the counting. */
function countFsyncs(): { count: () => number; restore: () => void } {
  let fsyncs = 0;
  const restore = interceptDatasync((_, synced) => {
    fsyncs++;
    return synced;
  });
  return { count: () => fsyncs, restore };
}

/** The documents of `durable.<collection>` a stand-in restarted on the data directory holds. */
async function storedAfterRestart(collection: string): Promise<number> {
  const reopened = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const client = await MongoClient.connect(reopened.uri);
  try {
    return await client.db('durable').collection(collection).countDocuments();
  } finally {
    await client.close();
    await reopened.stop();
  }
}

test('concurrent writes share fsyncs: 32 clients, 320 acknowledged $inc, fewer than half as many fsyncs, all kept', async () => {
  const standin = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const fsyncs = countFsyncs();
  const writes = 320;
  try {
    const client = await MongoClient.connect(standin.uri, { maxPoolSize: CLIENTS });
    const counters = client.db('durable').collection<Counter>('counters');
    await counters.insertOne({ _id: 'shared', seq: 0 });
    const before = fsyncs.count(); // only the clients' writes count
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < writes) {
          next++;
          await counters.updateOne({ _id: 'shared' }, { $inc: { seq: 1 } });
        }
      }),
    );
    expect(fsyncs.count() - before).toBeGreaterThan(0);
    expect(fsyncs.count() - before).toBeLessThan(writes / 2);
    await client.close();
  } finally {
    fsyncs.restore();
    await standin.stop();
  }
  const reopened = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const client = await MongoClient.connect(reopened.uri);
  await expect(
    client.db('durable').collection<Counter>('counters').findOne({ _id: 'shared' }),
  ).resolves.toEqual({ _id: 'shared', seq: writes });
  await client.close();
  await reopened.stop();
});

test('records appended while a batch is fsynced go in the next batch, acknowledged only after it', async () => {
  const store = new Store();
  const { journal } = await Journal.open(dataDir.path, store, { log: () => undefined });
  let firstCalled!: () => void;
  const firstSyncing = new Promise<void>((resolve) => (firstCalled = resolve));
  let releaseFirst!: () => void;
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  let fsyncs = 0;
  const restore = interceptDatasync((call, done) => {
    fsyncs = call;
    if (call > 1) return done;
    firstCalled();
    return Promise.all([done, firstHeld]).then(() => undefined);
  });
  try {
    const { collection } = store.obtain('durable', 'batches');
    const settled: string[] = [];
    collection.insert({ _id: 1 });
    const first = journal.durable().then(() => settled.push('first'));
    await firstSyncing;
    collection.insert({ _id: 2 });
    collection.insert({ _id: 3 });
    const second = journal.durable().then(() => settled.push('second'));
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toEqual([]);
    expect(fsyncs).toBe(1);
    releaseFirst();
    await Promise.all([first, second]);
    expect(settled).toEqual(['first', 'second']);
    expect(fsyncs).toBe(2); // records 2 and 3: one batch
  } finally {
    restore();
    await journal.close();
  }
  await expect(storedAfterRestart('batches')).resolves.toBe(3);
});

test('a batch is what one turn of the event loop appended, one fsync for all of it; a lone writer waits for no timer', async () => {
  // only setTimeout and setInterval are faked and never advanced: a batch written without them
  // proves the journal waited on no timer
  jest.useFakeTimers({
    doNotFake: ['Date', 'hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate'],
  });
  const store = new Store();
  const { journal } = await Journal.open(dataDir.path, store, { log: () => undefined });
  const fsyncs = countFsyncs();
  const { collection } = store.obtain('durable', 'turns');
  let id = 0;
  const write = () => {
    collection.insert({ _id: ++id });
    return journal.durable();
  };
  try {
    await Promise.all([write(), write(), write()]); // one synchronous step
    expect(fsyncs.count()).toBe(1);

    // three callbacks of one turn (as three clients' requests read in one I/O phase): the first
    // starts the batch, the two queued behind it still join it
    const callbacks = Array.from(
      { length: 3 },
      () => new Promise<void>((resolve) => setImmediate(() => void write().then(resolve))),
    );
    await Promise.all(callbacks);
    expect(fsyncs.count()).toBe(2);

    // one writer at a time: a batch each, at the end of its own turn
    for (let i = 0; i < 5; i++) await write();
    expect(fsyncs.count()).toBe(7);
  } finally {
    fsyncs.restore();
    jest.useRealTimers();
    await journal.close();
  }
  await expect(storedAfterRestart('turns')).resolves.toBe(id);
});

test('a batch stays open while every turn of the event loop appends records, at most BATCH_OPEN_MS', async () => {
  // jest's clock stands in for performance.now (how long the batch is open); setImmediate is real
  jest.useFakeTimers({
    doNotFake: ['Date', 'hrtime', 'nextTick', 'queueMicrotask', 'setImmediate'],
  });
  const store = new Store();
  const { journal } = await Journal.open(dataDir.path, store, { log: () => undefined });
  const fsyncs = countFsyncs();
  const { collection } = store.obtain('durable', 'open');
  let id = 0;
  /**
   * A record in each of `turns` consecutive turns (as clients whose requests keep arriving), each
   * turn's callback queued before the journal looks whether the turn before appended anything.
   */
  const writeInTurns = (turns: number, duringTurn: (turn: number) => void = () => undefined) =>
    new Promise<void>((resolve) => {
      const turn = (n: number) => {
        if (n === turns) return resolve();
        setImmediate(() => turn(n + 1));
        duringTurn(n);
        collection.insert({ _id: ++id });
        void journal.durable();
      };
      setImmediate(() => turn(0));
    });
  try {
    await writeInTurns(6);
    await journal.durable();
    expect(fsyncs.count()).toBe(1); // six turns, one batch: it closed at the first turn with no record

    await writeInTurns(6, (n) => n === 2 && jest.advanceTimersByTime(BATCH_OPEN_MS));
    await journal.durable();
    expect(fsyncs.count()).toBe(3); // open for BATCH_OPEN_MS after the third turn: closed there
  } finally {
    fsyncs.restore();
    jest.useRealTimers();
    await journal.close();
  }
  await expect(storedAfterRestart('open')).resolves.toBe(id);
});
