/**
 * A full disk, for real (a 3 MB tmpfs, tmpfs.ts): 32 clients of the real driver insert until
 * the filesystem is full. The journal acknowledges only what it wrote whole and fsynced, refuses
 * writes with OutOfDiskSpace (14031) while reads go on and show exactly what was acknowledged,
 * takes writes again once the filesystem has room (no restart), and a restart holds every
 * acknowledged document. The change history, too, holds exactly the acknowledged inserts. With
 * room for a record but not for the zeros a journal file writes ahead of its records
 * (state/journal-file.ts), the write is refused the same way.
 */
import { mkdir, readdir, stat, truncate } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { MongoClient, MongoServerError } from 'mongodb';
import { startStandin } from '../src';
import { PREALLOCATE_BYTES } from '../src/state/journal-file';
import { canMountTmpfs, mountTmpfs, type Tmpfs } from './tmpfs';

const CLIENTS = 32;
const PADDING = 'x'.repeat(900);

interface User {
  _id: number;
  email: string;
  padding: string;
}

let disk: Tmpfs;

beforeEach(async () => {
  if (canMountTmpfs) disk = await mountTmpfs('3m');
});

afterEach(async () => {
  if (canMountTmpfs) await disk.unmount();
});

(canMountTmpfs ? test : test.skip)(
  'on a full tmpfs (needs root): only written writes are acknowledged, the rest refused with OutOfDiskSpace; reads go on; writes resume once there is room; a restart keeps them all',
  async () => {
    const dataDir = path.join(disk.dir, 'data');
    const standin = await startStandin({ dataDir, log: () => undefined });
    const client = await MongoClient.connect(standin.uri, { maxPoolSize: CLIENTS });
    const users = client.db('t').collection<User>('users');
    await users.createIndex({ email: 1 }, { unique: true });
    const stream = users.watch();
    await stream.tryNext();
    const beforeLoad = stream.resumeToken;
    await stream.close();
    const acknowledged = new Set<number>();
    const refusals: unknown[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        // bounded: the disk holds about 3,000 of these; stop after 200 refusals
        while (refusals.length < 200 && next < 20_000) {
          const id = ++next;
          try {
            await users.insertOne({ _id: id, email: `${id}@x`, padding: PADDING });
            acknowledged.add(id);
          } catch (error) {
            refusals.push(error);
          }
        }
      }),
    );
    expect(acknowledged.size).toBeGreaterThan(500);
    expect(refusals.length).toBeGreaterThanOrEqual(200);
    for (const error of refusals)
      expect(error).toMatchObject({ code: 14031, codeName: 'OutOfDiskSpace' });

    // reads go on, and show exactly what was acknowledged (memory was read back from the disk)
    const storedIds = (await users.find({}, { projection: { _id: 1 } }).toArray()).map(
      (user) => user._id,
    );
    expect(new Set(storedIds)).toEqual(acknowledged);
    // and the change history holds exactly the acknowledged inserts: none a failed write dropped
    const replay = users.watch([], { resumeAfter: beforeLoad });
    const inserted = new Set<number>();
    for (let reads = 0; reads < 10_000 && inserted.size < acknowledged.size; reads++) {
      const event = await replay.tryNext();
      if (event === null) break;
      if (event.operationType === 'insert') inserted.add(event.documentKey._id as number);
    }
    expect(await replay.tryNext()).toBeNull();
    await replay.close();
    expect(inserted).toEqual(acknowledged);
    await expect(users.insertOne({ _id: 0, email: '0@x', padding: PADDING })).rejects.toThrow(
      MongoServerError,
    );

    disk.resize('8m');
    let resumed = false;
    for (let attempt = 0; attempt < 50 && !resumed; attempt++) {
      resumed = await users.insertOne({ _id: 0, email: '0@x', padding: PADDING }).then(
        () => true,
        async (error: MongoServerError) => {
          expect(error.code).toBe(14031); // refused until a probe finds room, then taken
          await sleep(100);
          return false;
        },
      );
    }
    expect(resumed).toBe(true);
    acknowledged.add(0);
    for (let id = 1; id <= 100; id++)
      await users.insertOne({ _id: -id, email: `-${id}@x`, padding: PADDING });
    for (let id = 1; id <= 100; id++) acknowledged.add(-id);
    await client.close();
    await standin.stop();

    const reopened = await startStandin({ dataDir, log: () => undefined });
    const reader = await MongoClient.connect(reopened.uri);
    const stored = await reader
      .db('t')
      .collection<User>('users')
      .find({}, { projection: { _id: 1 } })
      .toArray();
    expect(new Set(stored.map((user) => user._id))).toEqual(acknowledged);
    await reader.close();
    await reopened.stop();
  },
  120_000,
);

(canMountTmpfs ? test : test.skip)(
  'with room for a record but not for the zeros written ahead of it (needs root): the write is refused with OutOfDiskSpace and nothing of it stays; once there is room it is taken, and kept',
  async () => {
    const dataDir = path.join(disk.dir, 'data');
    await mkdir(dataDir);
    await disk.fill();
    // free a little under a chunk of zeros: a record fits, the space written ahead does not
    const filler = path.join(disk.dir, 'filler');
    await truncate(filler, (await stat(filler)).size - PREALLOCATE_BYTES / 4);
    const standin = await startStandin({ dataDir, log: () => undefined });
    const client = await MongoClient.connect(standin.uri);
    const users = client.db('t').collection<User>('users');
    await expect(users.insertOne({ _id: 1, email: '1@x', padding: PADDING })).rejects.toMatchObject(
      { code: 14031, codeName: 'OutOfDiskSpace' },
    );
    await expect(users.countDocuments()).resolves.toBe(0);
    const journal = (await readdir(dataDir)).find((name) => name.startsWith('journal.'))!;
    expect((await stat(path.join(dataDir, journal))).size).toBe(0); // cut back: no zeros kept

    disk.resize('8m');
    let taken = false;
    for (let attempt = 0; attempt < 50 && !taken; attempt++) {
      taken = await users.insertOne({ _id: 1, email: '1@x', padding: PADDING }).then(
        () => true,
        async (error: MongoServerError) => {
          expect(error.code).toBe(14031); // refused until a probe finds room, then taken
          await sleep(100);
          return false;
        },
      );
    }
    expect(taken).toBe(true);
    await client.close();
    await standin.stop();

    const reopened = await startStandin({ dataDir, log: () => undefined });
    const reader = await MongoClient.connect(reopened.uri);
    await expect(reader.db('t').collection<User>('users').find().toArray()).resolves.toEqual([
      { _id: 1, email: '1@x', padding: PADDING },
    ]);
    await reader.close();
    await reopened.stop();
  },
  120_000,
);
