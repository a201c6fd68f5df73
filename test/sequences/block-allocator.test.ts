import { MongoClient } from 'mongodb';
import { BlockAllocator, Sequences } from '../../src/sequences';
import { sequencesOptions } from '../support/domain-options';
import { SequencesTestBed, userid } from './fixture';

const bed = SequencesTestBed.forThisFile();

const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('BlockAllocator', () => {
  test('300 concurrent takes with block size 100 share refills: exactly 3 allocations', async () => {
    const db = bed.db();
    const blocks = new BlockAllocator(bed.sequences(db), userid, 100);
    const tallies = Array.from({ length: 300 }, () => ({ commands: 0 }));
    let taken: number[][] = [];
    const allocations = await bed.countCommands(db, 'findAndModify', async () => {
      taken = await Promise.all(tallies.map((tally) => blocks.take(1, tally)));
    });
    expect(allocations).toBe(3);
    expect(tallies.reduce((sum, tally) => sum + tally.commands, 0)).toBe(3);
    expect(ascending(taken.flat())).toEqual(oneTo(300));
  });

  test('concurrent takes from two processes and plain allocations on one counter never repeat a value', async () => {
    const db = bed.db();
    const first = bed.sequences(db);
    const second = bed.sequences(db);
    const blocksA = new BlockAllocator(first, userid, 10);
    const blocksB = new BlockAllocator(second, userid, 7);
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => {
        if (i % 3 === 0) return blocksA.take(1 + (i % 4));
        if (i % 3 === 1) return blocksB.take(1 + (i % 5));
        return first.allocate(userid).then((range) => [range.first]);
      }),
    );
    const values = results.flat();
    expect(new Set(values).size).toBe(values.length);
    expect(Math.max(...values)).toBeLessThanOrEqual((await first.get(userid))?.value ?? 0);
  });

  test('a take larger than what is left uses the rest plus one allocation of what is still needed', async () => {
    const db = bed.db();
    const blocks = new BlockAllocator(bed.sequences(db), userid, 100);
    expect(await blocks.take(30)).toEqual(oneTo(30));
    let batch: number[] = [];
    const allocations = await bed.countCommands(db, 'findAndModify', async () => {
      batch = await blocks.take(250);
    });
    expect(allocations).toBe(1);
    expect(batch).toEqual(oneTo(280).slice(30));
    expect(await blocks.take(2)).toEqual([281, 282]);
  });

  test('values follow the sequence step, and a block never hands out a value twice', async () => {
    const sequences = bed.sequences(bed.db());
    await sequences.create({ name: 'even', start: 2, step: 2 });
    const blocks = new BlockAllocator(sequences, { name: 'even' }, 4);
    expect(await blocks.take(3)).toEqual([2, 4, 6]);
    expect(await blocks.take(3)).toEqual([8, 10, 12]);
  });

  test('discardBlock abandons the rest of the block, also of a refill in flight: a gap, never a repeat', async () => {
    const sequences = bed.sequences(bed.db());
    const blocks = new BlockAllocator(sequences, userid, 100);
    expect(await blocks.take(1)).toEqual([1]);
    blocks.discardBlock();
    expect(await blocks.take(1)).toEqual([101]);
    blocks.discardBlock();
    const inFlight = blocks.take(1);
    blocks.discardBlock();
    expect(await inFlight).toEqual([201]);
    expect(await blocks.take(1)).toEqual([301]);
  });

  test('values given back are handed out again before the block, lowest first, without a command', async () => {
    const db = bed.db();
    const blocks = new BlockAllocator(bed.sequences(db), userid, 10);
    expect(await blocks.take(5)).toEqual([1, 2, 3, 4, 5]);
    blocks.giveBack([4, 2]);
    let taken: number[][] = [];
    const allocations = await bed.countCommands(db, 'findAndModify', async () => {
      taken = [await blocks.take(1), await blocks.take(3)];
    });
    expect(allocations).toBe(0);
    expect(taken).toEqual([[2], [4, 6, 7]]);
  });

  test('a refill landing after a give-back keeps the given-back values; discardBlock drops them', async () => {
    const blocks = new BlockAllocator(bed.sequences(bed.db()), userid, 2);
    expect(await blocks.take(2)).toEqual([1, 2]);
    const refilling = blocks.take(1);
    blocks.giveBack([1]);
    expect(await refilling).toEqual([3]);
    expect(await blocks.take(2)).toEqual([1, 4]);
    blocks.giveBack([4, 1]);
    blocks.discardBlock();
    expect(await blocks.take(1)).toEqual([5]);
  });

  test('near max a refill shrinks to what is needed; past max every waiter gets SEQUENCE_EXHAUSTED', async () => {
    const sequences = bed.sequences(bed.db());
    await sequences.create({ name: 'seat', max: 151 });
    const blocks = new BlockAllocator(sequences, { name: 'seat' }, 100);
    expect(await blocks.take(100)).toEqual(oneTo(100));
    expect(await blocks.take(50)).toEqual(oneTo(150).slice(100));
    const outcomes = await Promise.allSettled([blocks.take(1), blocks.take(1), blocks.take(1)]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: [151] });
    for (const outcome of outcomes.slice(1)) {
      expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'SEQUENCE_EXHAUSTED' } });
    }
  });

  test('block size and count are checked', async () => {
    const sequences = bed.sequences(bed.db());
    expect(() => new BlockAllocator(sequences, userid, 0)).toThrow(RangeError);
    expect(() => new BlockAllocator(sequences, userid, 10_001)).toThrow(RangeError);
    const blocks = new BlockAllocator(sequences, userid, 10);
    await expect(blocks.take(0)).rejects.toMatchObject({ code: 'BAD_USER_INPUT', field: 'count' });
  });
});

describe('BlockAllocator when the database cannot be reached', () => {
  test('a failed refill fails every caller waiting for it, with one attempt in all', async () => {
    const unreachable = new MongoClient('mongodb://127.0.0.1:9/', {
      serverSelectionTimeoutMS: 300,
    });
    try {
      const sequences = new Sequences(unreachable.db('nowhere'), sequencesOptions);
      const allocate = jest.spyOn(sequences, 'allocate');
      const blocks = new BlockAllocator(sequences, userid, 100);
      const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => blocks.take(1)));
      expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
      expect(allocate).toHaveBeenCalledTimes(1);
    } finally {
      await unreachable.close();
    }
  });
});
