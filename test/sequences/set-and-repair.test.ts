import type { SequenceKey } from '../../src/sequences';
import { SequencesTestBed, userid } from './fixture';

const bed = SequencesTestBed.forThisFile();

describe('peek, set and repair', () => {
  test('peekNext has no side effects and names the value the next allocation returns', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    expect(await sequences.peekNext(userid)).toBe(1);
    expect(await sequences.peekNext(userid)).toBe(1);
    expect(await db.collection('counters').countDocuments()).toBe(0);
    await sequences.create({ name: 'odd', start: 7, step: 2 });
    expect(await sequences.peekNext({ name: 'odd' })).toBe(7);
    expect((await sequences.allocate({ name: 'odd' })).first).toBe(7);
    expect(await sequences.peekNext({ name: 'odd' })).toBe(9);
    expect(await sequences.peekNext({ name: 'odd' })).toBe(9);
    expect((await sequences.allocate({ name: 'odd' })).first).toBe(9);
  });

  test('setValue moves the counter, forwards or back, and the next allocation follows it', async () => {
    const sequences = bed.sequences(bed.db());
    await sequences.allocate(userid, 10);
    expect(await sequences.setValue(userid, 500)).toMatchObject({ value: 500, next: 501 });
    expect((await sequences.allocate(userid)).first).toBe(501);
    await sequences.setValue(userid, 20);
    expect((await sequences.allocate(userid)).first).toBe(21);
  });

  test('setValue on a counter nobody used yet creates it with the defaults', async () => {
    const sequences = bed.sequences(bed.db());
    expect(await sequences.setValue({ name: 'fresh' }, 41)).toMatchObject({
      start: 1,
      step: 1,
      value: 41,
    });
    expect((await sequences.allocate({ name: 'fresh' })).first).toBe(42);
  });

  test('setValue with forwardOnly refuses a value below the last issued, leaving the counter unchanged', async () => {
    const sequences = bed.sequences(bed.db());
    await sequences.create({ name: 'even', start: 2, step: 2 });
    await sequences.allocate({ name: 'even' }, 5);
    await expect(
      sequences.setValue({ name: 'even' }, 8, { forwardOnly: true }),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT', field: 'value' });
    expect(await sequences.peekNext({ name: 'even' })).toBe(12);
    expect(await sequences.setValue({ name: 'even' }, 100, { forwardOnly: true })).toMatchObject({
      next: 102,
    });
  });

  test('setValue outside start - step .. max is refused naming the value', async () => {
    const sequences = bed.sequences(bed.db());
    await sequences.create({ name: 'seat', start: 10, max: 20 });
    for (const value of [8, 21, 1.5, 2 ** 53]) {
      await expect(sequences.setValue({ name: 'seat' }, value)).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'value',
      });
    }
    expect(await sequences.setValue({ name: 'seat' }, 9)).toMatchObject({ next: 10 });
    expect(await sequences.setValue({ name: 'seat' }, 20)).toMatchObject({ value: 20 });
    await expect(sequences.allocate({ name: 'seat' })).rejects.toMatchObject({
      code: 'SEQUENCE_EXHAUSTED',
    });
  });

  test('repairCounterDrift moves the counter up to the floor and never down', async () => {
    const sequences = bed.sequences(bed.db());
    await sequences.allocate(userid, 5);
    const tally = { commands: 0 };
    await sequences.repairCounterDrift(userid, 40, tally);
    expect(tally.commands).toBe(1);
    expect((await sequences.allocate(userid)).first).toBe(41);
    await sequences.repairCounterDrift(userid, 3);
    expect((await sequences.allocate(userid)).first).toBe(42);
  });

  test('repairCounterDrift creates a missing counter at the floor (ids stored before any counter)', async () => {
    const sequences = bed.sequences(bed.db());
    await sequences.repairCounterDrift(userid, 1000);
    expect(await sequences.get(userid)).toMatchObject({ start: 1, step: 1, value: 1000 });
    expect((await sequences.allocate(userid)).first).toBe(1001);
  });

  test('onCounterWrite is called once per counter write: create, allocation, set, repair', async () => {
    const writes: SequenceKey[] = [];
    const db = bed.db();
    const sequences = bed.sequences(db, { onCounterWrite: (key) => writes.push(key) });
    await sequences.create({ name: 'invoice', scope: 'acme' });
    await sequences.allocate(userid);
    await sequences.allocate(userid, 50);
    await sequences.setValue(userid, 100);
    await sequences.repairCounterDrift(userid, 200);
    await sequences.peekNext(userid);
    await sequences.get(userid);
    await sequences.page({ first: 10 });
    await expect(
      bed.sequences(db).create({ name: 'invoice', scope: 'acme', step: 9 }),
    ).rejects.toMatchObject({ field: 'step' });
    expect(writes).toEqual([
      { name: 'invoice', scope: 'acme' },
      { name: 'userid', scope: null },
      { name: 'userid', scope: null },
      { name: 'userid', scope: null },
      { name: 'userid', scope: null },
    ]);
  });
});
