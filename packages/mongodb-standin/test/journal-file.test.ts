/**
 * Preallocated journal files and the recovery rules they need (state/journal-file.ts,
 * state/record-file.ts), on real files and on the bytes a crash can leave: records are written
 * into zeros written ahead of them; reading stops where only zeros follow; a record cut short
 * and followed by zeros is a torn write; a bad record followed by anything but zeros, or whose
 * claimed length covers a whole record, is corruption and never dropped silently; eight zero
 * bytes are never a record; an fsync runs on the event loop while the last one was quick, in the
 * thread pool after a slow one. Whole stand-ins crashed and restarted on such files are in
 * durability.test.ts.
 */
import fs from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Document } from '../src/engine/values';
import { JournalFile, LOOP_SYNC_LIMIT_MS, PREALLOCATE_BYTES } from '../src/state/journal-file';
import { CorruptRecordError, decodeRecords, encodeRecord } from '../src/state/record-file';
import { freshDataDir } from './data-dir';

const dataDir = freshDataDir('standin-journal-file-');

const records = [1, 2, 3].map((n) => encodeRecord({ op: 'put', n, padding: 'x'.repeat(40 * n) }));
const whole = Buffer.concat(records);
// cuts below end on a byte of the padding, so the torn bytes are counted up to the cut
const zeros = (bytes: number) => Buffer.alloc(bytes);
/** the `n` of each record read back (undefined for one without) */
const numbers = (read: Document[]) => read.map((record) => record.n && Number(record.n));

describe('reading records back', () => {
  test.each([
    ['records only (an append-only journal)', [whole], 3, 0],
    ['records, then zeros written ahead', [whole, zeros(4096)], 3, 0],
    ['only zeros (space taken before the first record)', [zeros(4096)], 0, 0],
    ['a record cut short at the end of the file', [whole, records[0].subarray(0, 60)], 3, 60],
    [
      'a record cut short, then the zeros it was written into',
      [whole, records[1].subarray(0, 60), zeros(4096)],
      3,
      60,
    ],
    ['a header cut short, then zeros', [whole, records[2].subarray(0, 1), zeros(100)], 3, 1],
    [
      'a whole header and a payload left at zeros',
      [records[0], records[1].subarray(0, 8), zeros(records[1].length - 8 + 100)],
      1,
      8,
    ],
  ])('%s', (_, parts, count, tornBytes) => {
    const decoded = decodeRecords(Buffer.concat(parts), 'journal.000001');
    expect(numbers(decoded.records)).toEqual([1, 2, 3].slice(0, count));
    expect(decoded.validLength).toBe(count === 3 ? whole.length : records[0].length * count);
    expect(decoded.tornBytes).toBe(tornBytes);
  });

  test('zeros followed by a record are a hole, not the end: recovery stops instead of dropping the record', () => {
    const holed = Buffer.concat([records[0], zeros(64), records[1], zeros(4096)]);
    expect(() => decodeRecords(holed, 'journal.000001')).toThrow(CorruptRecordError);
    expect(() => decodeRecords(holed, 'journal.000001')).toThrow(
      /journal\.000001: record at byte \d+ has an impossible length \(0\) and is not the last one/,
    );
  });

  test('a record with a flipped byte followed by records and zeros is corruption, not a tear', () => {
    const flipped = Buffer.concat([whole, zeros(4096)]);
    flipped[records[0].length + 20] ^= 0x01;
    expect(() => decodeRecords(flipped, 'journal.000001')).toThrow(
      new RegExp(`record at byte ${records[0].length} fails its checksum and is not the last one`),
    );
  });

  // a length byte flipped upward makes a record claim more than it holds: it must not pass for
  // the torn last record, or every acknowledged record after it would be dropped silently
  const claimingMore = (extra: number) => {
    const bad = Buffer.from(records[1]);
    bad.writeUInt32LE(bad.readUInt32LE(0) + extra, 0);
    return bad;
  };
  const pastTheEnd = `claims a length \\(${records[1].length - 8 + (1 << 24)}\\) past the end of the file`;
  test.each([
    [
      'past the end of a preallocated file',
      [records[0], claimingMore(1 << 24), records[2], zeros(4096)],
      pastTheEnd,
    ],
    [
      'into the zeros of a preallocated file',
      [records[0], claimingMore(1000), records[2], zeros(4096)],
      'fails its checksum',
    ],
    [
      'past the end of an append-only file',
      [records[0], claimingMore(1 << 24), records[2]],
      pastTheEnd,
    ],
  ])(
    'a record whose length claims %s, with a whole record after it, is corruption',
    (_, parts, wrong) => {
      expect(() => decodeRecords(Buffer.concat(parts), 'journal.000001')).toThrow(
        new RegExp(
          `journal\\.000001: record at byte ${records[0].length} ${wrong} and is not the last one`,
        ),
      );
    },
  );

  test('a record cut short whose bytes hold no whole record is still a torn write, however long its claimed length', () => {
    const torn = claimingMore(1 << 24).subarray(0, 70);
    for (const tail of [[], [zeros(4096)]]) {
      const decoded = decodeRecords(Buffer.concat([records[0], torn, ...tail]), 'journal.000001');
      expect(numbers(decoded.records)).toEqual([1]);
      expect(decoded.tornBytes).toBe(70);
    }
  });

  test('a record cut short with data after what it claims is corruption', () => {
    const cut = Buffer.concat([records[0], records[1].subarray(0, 20), zeros(200), records[2]]);
    expect(() => decodeRecords(cut, 'journal.000001')).toThrow(CorruptRecordError);
  });
});

describe('JournalFile', () => {
  test('takes PREALLOCATE_BYTES of zeros at the first append, writes records into them, and a close trims them', async () => {
    const name = path.join(dataDir.path, 'journal.000001');
    const file = await JournalFile.create(name);
    expect((await stat(name)).size).toBe(0); // nothing taken until the first batch
    await expect(file.append(records)).resolves.toBe(whole.length);
    await file.datasync();
    expect((await stat(name)).size).toBe(PREALLOCATE_BYTES);
    expect(file.preallocated).toBe(PREALLOCATE_BYTES - whole.length);
    const onDisk = await readFile(name);
    expect(onDisk.subarray(0, whole.length)).toEqual(whole);
    expect(onDisk.subarray(whole.length).every((byte) => byte === 0)).toBe(true);
    expect(decodeRecords(onDisk, name)).toMatchObject({
      validLength: whole.length,
      tornBytes: 0,
    });
    await file.close(true);
    expect(await readFile(name)).toEqual(whole);
  });

  test('a batch larger than the space left takes whole chunks of zeros ahead of it, in order', async () => {
    const name = path.join(dataDir.path, 'journal.000001');
    const file = await JournalFile.create(name);
    const big = encodeRecord({ op: 'put', padding: 'y'.repeat(PREALLOCATE_BYTES + 1000) });
    await file.append([records[0]]);
    await file.append([big]);
    await file.append([records[1]]);
    await file.datasync();
    const size = (await stat(name)).size;
    expect(size).toBe(2 * PREALLOCATE_BYTES);
    const decoded = decodeRecords(await readFile(name), name);
    expect(numbers(decoded.records)).toEqual([1, undefined, 2]);
    expect(decoded.validLength).toBe(records[0].length + big.length + records[1].length);
    await file.truncate(records[0].length);
    expect(await readFile(name)).toEqual(records[0]);
    await file.append([records[2]]);
    await file.close(false);
    expect(numbers(decodeRecords(await readFile(name), name).records)).toEqual([1, 3]);
  });

  test('an fsync runs on the event loop while the last one returned within LOOP_SYNC_LIMIT_MS, in the thread pool after a slower one until one is quick again', async () => {
    const name = path.join(dataDir.path, 'journal.000001');
    const file = await JournalFile.create(name);
    const probe = await open(path.join(dataDir.path, 'probe'), 'w');
    const fileHandles = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
    await probe.close();
    const onLoop = jest.spyOn(fs, 'fdatasyncSync');
    const inPool = jest.spyOn(fileHandles, 'datasync');
    // each fsync reads the clock when it starts and when it returns
    const clock = jest.spyOn(performance, 'now');
    const fsyncTaking = (ms: number) =>
      clock.mockReturnValueOnce(100).mockReturnValueOnce(100 + ms);
    try {
      const where = async (ms: number) => {
        const [loop, pool] = [onLoop.mock.calls.length, inPool.mock.calls.length];
        await file.append([records[0]]);
        fsyncTaking(ms);
        await file.datasync();
        return onLoop.mock.calls.length > loop
          ? 'loop'
          : inPool.mock.calls.length > pool
            ? 'pool'
            : 'none';
      };
      const slow = LOOP_SYNC_LIMIT_MS * 5;
      const quick = LOOP_SYNC_LIMIT_MS / 5;
      await expect(where(quick)).resolves.toBe('loop'); // the first one: no slow one yet
      await expect(where(slow)).resolves.toBe('loop'); // this one was slow...
      await expect(where(slow)).resolves.toBe('pool'); // ...so the next goes to the pool, slow too
      await expect(where(quick)).resolves.toBe('pool'); // still after a slow one; quick now
      await expect(where(quick)).resolves.toBe('loop'); // back on the loop
    } finally {
      clock.mockRestore();
      onLoop.mockRestore();
      inPool.mockRestore();
    }
    await file.close(false);
    expect(decodeRecords(await readFile(name), name).records).toHaveLength(5);
  });

  test('an fsync that fails on the event loop rejects, as one in the thread pool does, and never throws', async () => {
    const file = await JournalFile.create(path.join(dataDir.path, 'journal.000001'));
    await file.append([records[0]]);
    const failure = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    const onLoop = jest.spyOn(fs, 'fdatasyncSync').mockImplementationOnce(() => {
      throw failure;
    });
    try {
      let synced!: Promise<void>;
      expect(() => (synced = file.datasync())).not.toThrow();
      await expect(synced).rejects.toBe(failure);
      expect(onLoop).toHaveBeenCalledTimes(1);
    } finally {
      onLoop.mockRestore();
    }
    await file.close(false);
  });
});
