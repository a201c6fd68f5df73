import { Long } from 'mongodb';
import { rawCounter, SequencesTestBed, userid } from './fixture';

const bed = SequencesTestBed.forThisFile();

describe('releaseUnused', () => {
  test('gives back the newest range in one update: the next allocation returns its values again', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    await sequences.allocate(userid, 3);
    const range = await sequences.allocate(userid, 4);
    let released = false;
    const sent = await bed.commandsSent(db, async () => {
      released = await sequences.releaseUnused(userid, range);
    });
    expect(released).toBe(true);
    expect(sent.map((event) => event.commandName)).toEqual(['update']);
    expect((await rawCounter(db, 'userid'))?.seq).toEqual(Long.fromNumber(3));
    expect(await sequences.allocate(userid, 4)).toEqual(range);
  });

  test('follows the step, and a released first range leaves the counter as if nothing was issued', async () => {
    const sequences = bed.sequences(bed.db());
    await sequences.create({ name: 'even', start: 2, step: 2 });
    const range = await sequences.allocate({ name: 'even' }, 3);
    expect(range).toEqual({ first: 2, last: 6, step: 2, count: 3 });
    expect(await sequences.releaseUnused({ name: 'even' }, range)).toBe(true);
    expect(await sequences.get({ name: 'even' })).toMatchObject({ value: 0, next: 2 });
  });

  test('refuses once anything was allocated after the range, and the counter stays where it was', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    const mine = await sequences.allocate(userid);
    const other = bed.sequences(db);
    await other.allocate(userid);
    expect(await sequences.releaseUnused(userid, mine)).toBe(false);
    expect(await sequences.peekNext(userid)).toBe(3);
  });

  test('ranges given back newest first all come back; an older one cannot jump the queue', async () => {
    const sequences = bed.sequences(bed.db());
    const first = await sequences.allocate(userid, 2);
    const second = await sequences.allocate(userid, 2);
    expect(await sequences.releaseUnused(userid, first)).toBe(false);
    expect(await sequences.releaseUnused(userid, second)).toBe(true);
    expect(await sequences.releaseUnused(userid, first)).toBe(true);
    expect(await sequences.peekNext(userid)).toBe(1);
  });

  test('concurrent allocations and releases never issue a value twice', async () => {
    const db = bed.db();
    const [a, b] = [bed.sequences(db), bed.sequences(db)];
    const kept = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const sequences = i % 2 === 0 ? a : b;
        const range = await sequences.allocate(userid, 1 + (i % 3));
        // Every third caller "stored nothing" and tries to give its range back.
        if (i % 3 === 0 && (await sequences.releaseUnused(userid, range))) return [];
        return Array.from({ length: range.count }, (_, k) => range.first + k);
      }),
    );
    const values = kept.flat();
    expect(new Set(values).size).toBe(values.length);
    expect(await a.peekNext(userid)).toBeGreaterThan(Math.max(...values));
  });

  test('reports a counter write only when it gave the range back', async () => {
    const db = bed.db();
    const writes: string[] = [];
    const sequences = bed.sequences(db, { onCounterWrite: (key) => writes.push(key.name) });
    const older = await sequences.allocate(userid);
    const newer = await sequences.allocate(userid);
    await sequences.releaseUnused(userid, older);
    expect(writes).toHaveLength(2);
    await sequences.releaseUnused(userid, newer);
    expect(writes).toEqual(['userid', 'userid', 'userid']);
  });

  test('counts its command in the tally it is given', async () => {
    const sequences = bed.sequences(bed.db());
    const range = await sequences.allocate(userid);
    const tally = { commands: 0 };
    await sequences.releaseUnused(userid, range, tally);
    expect(tally.commands).toBe(1);
  });
});
