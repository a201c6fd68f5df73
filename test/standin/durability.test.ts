/**
 * A stand-in with a data directory keeps what it acknowledged: a child process (the CLI, as
 * `npm run standin -- --data-dir` starts it) is SIGKILLed under 32 concurrent clients of the real
 * driver, and restarted on the same directory; torn and corrupt journal records, snapshot
 * rotation, a crash while a snapshot is written, and a journal that cannot write are covered
 * in-process; so are group commit (concurrent writes share fsyncs) and the order of overlapped
 * fsyncs (a batch is acknowledged only after every batch before it is on disk). A full
 * filesystem is full-disk.test.ts; simultaneous starts, data-lock.test.ts.
 */
import { closeSync, openSync } from 'node:fs';
import { appendFile, open, readdir, readFile, readlink, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Long, MongoClient } from 'mongodb';
import { startStandin } from '../../src/standin';
import { Store } from '../../src/standin/engine/store';
import { Journal } from '../../src/standin/state/journal';
import { PREALLOCATE_BYTES } from '../../src/standin/state/journal-file';
import { decodeRecords } from '../../src/standin/state/record-file';
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
 * Puts `wrap` around every FileHandle's datasync (their shared prototype's): it gets each call's
 * number and the real fsync's promise, and returns what the caller waits for. Returns the undo.
 */
async function interceptDatasync(
  wrap: (call: number, synced: Promise<void>) => Promise<void>,
): Promise<() => void> {
  const probe = await open(path.join(dataDir.path, 'probe'), 'w');
  const handles = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
  await probe.close();
  const datasync = handles.datasync;
  let calls = 0;
  handles.datasync = function (this: unknown) {
    return wrap(++calls, datasync.call(this));
  };
  return () => (handles.datasync = datasync);
}

test('concurrent writes share fsyncs: 32 clients, 320 acknowledged $inc, fewer than half as many fsyncs, all kept', async () => {
  const standin = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  // count the journal's fsyncs while the clients write
  let fsyncs = 0;
  const restore = await interceptDatasync((_, synced) => {
    fsyncs++;
    return synced;
  });
  const writes = 320;
  try {
    const client = await MongoClient.connect(standin.uri, { maxPoolSize: CLIENTS });
    const counters = client.db('durable').collection<Counter>('counters');
    await counters.insertOne({ _id: 'shared', seq: 0 });
    fsyncs = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < writes) {
          next++;
          await counters.updateOne({ _id: 'shared' }, { $inc: { seq: 1 } });
        }
      }),
    );
    expect(fsyncs).toBeGreaterThan(0);
    expect(fsyncs).toBeLessThan(writes / 2);
    await client.close();
  } finally {
    restore();
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

test('the next batch is fsynced while the one before is, but acknowledged only after it', async () => {
  const store = new Store();
  const { journal } = await Journal.open(dataDir.path, store, { log: () => undefined });
  let releaseFirst!: () => void;
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  let secondReturned!: () => void;
  const secondSynced = new Promise<void>((resolve) => (secondReturned = resolve));
  const restore = await interceptDatasync((call, done) => {
    if (call === 1) return Promise.all([done, firstHeld]).then(() => undefined);
    if (call === 2) void done.then(secondReturned);
    return done;
  });
  try {
    const { collection } = store.obtain('durable', 'batches');
    const settled: string[] = [];
    collection.insert({ _id: 1 });
    const first = journal.durable().then(() => settled.push('first'));
    collection.insert({ _id: 2 });
    const second = journal.durable().then(() => settled.push('second'));
    await secondSynced; // the second batch's fsync returned while the first one's is held
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toEqual([]);
    releaseFirst();
    await Promise.all([first, second]);
    expect(settled).toEqual(['first', 'second']);
  } finally {
    restore();
    await journal.close();
  }
  const reopened = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const client = await MongoClient.connect(reopened.uri);
  await expect(client.db('durable').collection('batches').countDocuments()).resolves.toBe(2);
  await client.close();
  await reopened.stop();
});

test('after a batch that shows concurrent writers, the next waits for more records (bounded); a lone writer never waits', async () => {
  // only setTimeout and setInterval are faked: the journal's bounded wait is a timer, its files
  // are real, so a batch written without that timer proves it did not wait
  jest.useFakeTimers({
    doNotFake: ['Date', 'hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate'],
  });
  const store = new Store();
  const { journal } = await Journal.open(dataDir.path, store, { log: () => undefined });
  let fsyncs = 0;
  const restore = await interceptDatasync((_, synced) => {
    fsyncs++;
    return synced;
  });
  const { collection } = store.obtain('durable', 'gathered');
  let id = 0;
  const write = (count: number) => {
    for (let i = 0; i < count; i++) collection.insert({ _id: ++id });
    let done = false;
    const durable = journal.durable().then(() => (done = true));
    return { durable, isDone: () => done };
  };
  /** lets the event loop run a while (I/O included), on no timer */
  const turns = async (count: number) => {
    for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  try {
    await write(5).durable; // one batch of 5: writers are concurrent
    expect(fsyncs).toBe(1);

    const lone = write(1); // waits for more to join, up to the timer
    await turns(50);
    expect(lone.isDone()).toBe(false);
    expect(fsyncs).toBe(1);
    const joining = write(15); // 16 waiting: the batch goes at once, timer or not
    await Promise.all([lone.durable, joining.durable]);
    expect(fsyncs).toBe(2);

    const alone = write(1); // after a batch of 16 it waits again, at most the timer's time
    await turns(50);
    expect(alone.isDone()).toBe(false);
    jest.advanceTimersByTime(1);
    await alone.durable;
    expect(fsyncs).toBe(3);

    // after a batch of 1, no wait: written with the timer never advanced
    for (let i = 0; i < 5; i++) await write(1).durable;
    expect(fsyncs).toBe(8);
  } finally {
    restore();
    jest.useRealTimers();
    await journal.close();
  }
  const reopened = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const client = await MongoClient.connect(reopened.uri);
  await expect(client.db('durable').collection('gathered').countDocuments()).resolves.toBe(id);
  await client.close();
  await reopened.stop();
});
