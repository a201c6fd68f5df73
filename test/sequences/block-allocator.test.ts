import { MongoClient, type Db, type Long } from 'mongodb';
import { BlockAllocator, Sequences, type BlockSizing } from '../../src/sequences';
import { sequencesOptions } from '../support/domain-options';
import { SequencesTestBed, userid } from './fixture';

const bed = SequencesTestBed.forThisFile();

const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
/** Blocks of exactly `size` values, whatever the rate. */
const fixed = (size: number): BlockSizing => ({ minBlockSize: size, maxBlockSize: size });

describe('BlockAllocator', () => {
  test('250 concurrent takes with block size 100 share refills: exactly 3 allocations', async () => {
    const db = bed.db();
    const blocks = new BlockAllocator(bed.sequences(db), userid, fixed(100));
    // The third block is fetched ahead once half of the second is gone; 250 takes stop before a
    // fourth would be (at the 251st value).
    const tallies = Array.from({ length: 250 }, () => ({ commands: 0 }));
    let taken: number[][] = [];
    const allocations = await bed.countCommands(db, 'findAndModify', async () => {
      taken = await Promise.all(tallies.map((tally) => blocks.take(1, tally)));
    });
    expect(allocations).toBe(3);
    expect(tallies.reduce((sum, tally) => sum + tally.commands, 0)).toBe(3);
    expect(ascending(taken.flat())).toEqual(oneTo(250));
  });

  test('concurrent takes from two processes and plain allocations on one counter never repeat a value', async () => {
    const db = bed.db();
    const first = bed.sequences(db);
    const second = bed.sequences(db);
    const blocksA = new BlockAllocator(first, userid, fixed(10));
    const blocksB = new BlockAllocator(second, userid, fixed(7));
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
    const blocks = new BlockAllocator(bed.sequences(db), userid, fixed(100));
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
    const blocks = new BlockAllocator(sequences, { name: 'even' }, fixed(4));
    expect(await blocks.take(3)).toEqual([2, 4, 6]);
    expect(await blocks.take(3)).toEqual([8, 10, 12]);
  });

  test('discardBlock abandons the rest of the block, also of a refill in flight: a gap, never a repeat', async () => {
    const sequences = bed.sequences(bed.db());
    const blocks = new BlockAllocator(sequences, userid, fixed(100));
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
    // 20: what is left stays above half a block, so no refill ahead starts either.
    const blocks = new BlockAllocator(bed.sequences(db), userid, fixed(20));
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
    const blocks = new BlockAllocator(bed.sequences(bed.db()), userid, fixed(2));
    expect(await blocks.take(2)).toEqual([1, 2]);
    const refilling = blocks.take(1);
    blocks.giveBack([1]);
    expect(await refilling).toEqual([3]);
    // That take left less than half a block, so [5, 6] is being fetched ahead.
    expect(await blocks.take(2)).toEqual([1, 4]);
    blocks.giveBack([4, 1]);
    blocks.discardBlock();
    // The block fetched ahead is abandoned with the rest: a gap, never a repeat.
    expect(await blocks.take(1)).toEqual([7]);
  });

  test('near max a refill shrinks to what is needed; past max every waiter gets SEQUENCE_EXHAUSTED', async () => {
    const sequences = bed.sequences(bed.db());
    await sequences.create({ name: 'seat', max: 151 });
    const blocks = new BlockAllocator(sequences, { name: 'seat' }, fixed(100));
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
    expect(() => new BlockAllocator(sequences, userid, fixed(0))).toThrow(RangeError);
    expect(() => new BlockAllocator(sequences, userid, fixed(10_001))).toThrow(RangeError);
    const blocks = new BlockAllocator(sequences, userid, fixed(10));
    await expect(blocks.take(0)).rejects.toMatchObject({ code: 'BAD_USER_INPUT', field: 'count' });
  });
});

/**
 * `workers` closed loops, as concurrent requests would run them: each takes one id and inserts a
 * document under it (so the unique `_id` would refuse a repeat), `total` documents in all.
 */
async function insertInLoops(
  db: Db,
  blocks: BlockAllocator,
  workers: number,
  total: number,
): Promise<number[]> {
  const users = db.collection<{ _id: number }>('users');
  const ids: number[] = [];
  let started = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (started < total) {
        started += 1;
        const [id] = await blocks.take(1);
        ids.push(id);
        await users.insertOne({ _id: id });
      }
    }),
  );
  return ids;
}

describe('BlockAllocator refilling ahead', () => {
  test('in steady state no take waits for the database: the next block is fetched in the background', async () => {
    const db = bed.db();
    const blocks = new BlockAllocator(bed.sequences(db), userid, fixed(100));
    await blocks.take(1);
    expect(blocks.refillsAwaited).toBe(1);
    let ids: number[] = [];
    const allocations = await bed.countCommands(db, 'findAndModify', async () => {
      ids = await insertInLoops(db, blocks, 8, 999);
    });
    expect(blocks.refillsAwaited).toBe(1);
    // Blocks 2 to 10, and the 11th, fetched once half of the 10th was gone.
    expect(allocations).toBe(10);
    expect(ascending(ids)).toEqual(oneTo(1000).slice(1));
  });

  test('two processes refilling ahead with adapting block sizes never hand out a value twice', async () => {
    const db = bed.db();
    const sizing = { minBlockSize: 5, maxBlockSize: 50, lifetimeMs: 200 };
    const blocksA = new BlockAllocator(bed.sequences(db), userid, sizing);
    const blocksB = new BlockAllocator(bed.sequences(db), userid, sizing);
    const [a, b] = await Promise.all([
      insertInLoops(db, blocksA, 4, 300),
      insertInLoops(db, blocksB, 4, 300),
    ]);
    const values = [...a, ...b];
    expect(new Set(values).size).toBe(600);
    expect(await db.collection('users').countDocuments()).toBe(600);
  });

  test('each block holds what the process hands out in a block lifetime, within the floor and the ceiling', async () => {
    const db = bed.db();
    let now = 0;
    const blocks = new BlockAllocator(bed.sequences(db), userid, {
      minBlockSize: 10,
      maxBlockSize: 1_000,
      lifetimeMs: 1_000,
      now: () => now,
    });
    const sent = await bed.commandsSent(db, async () => {
      // Each allocation's size: the values handed out since the previous one, per lifetime.
      await blocks.take(1); // the first block: the floor, 10
      now = 5;
      await blocks.take(5); // 6 values in 5 ms: 1,200 per lifetime, capped at 1,000
      await blocks.take(5); // uses it up and waits for that block
      now += 1_000_000;
      await blocks.take(500); // 505 values in 1,000 s: 0.5 per lifetime, raised to the floor
      await blocks.take(499);
      now += 2_525;
      await blocks.take(6); // 505 values in 2.525 s: 200 per lifetime
      await blocks.take(5); // waits for that block
    });
    const sizes = sent
      .filter((event) => event.commandName === 'findAndModify')
      .map((event) => (event.command.update as { $inc: { seq: Long } }).$inc.seq.toNumber());
    expect(sizes).toEqual([10, 1_000, 10, 200]);
  });
});

describe('BlockAllocator.close on a clean shutdown', () => {
  test('gives the unused rest back to the counter, given-back values included: the next process goes on without a gap', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    const blocks = new BlockAllocator(sequences, userid, fixed(100));
    expect(await blocks.take(5)).toEqual(oneTo(5));
    blocks.giveBack([5]);
    expect(await blocks.close()).toEqual({ givenBack: 96, leftUnused: 0 });
    expect((await sequences.get(userid))?.value).toBe(4);
    const nextProcess = new BlockAllocator(bed.sequences(db), userid, fixed(100));
    expect(await nextProcess.take(2)).toEqual([5, 6]);
  });

  test('waits for a block fetched ahead and gives it back with the rest of the current one', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    const blocks = new BlockAllocator(sequences, userid, fixed(10));
    expect(await blocks.take(6)).toEqual(oneTo(6));
    expect(await blocks.take(1)).toEqual([7]); // 3 left: [11, 20] is being fetched ahead
    let outcome;
    const sent = await bed.commandsSent(db, async () => {
      outcome = await blocks.close();
    });
    expect(outcome).toEqual({ givenBack: 13, leftUnused: 0 });
    expect(sent.filter((event) => event.commandName === 'update')).toHaveLength(1);
    expect((await sequences.get(userid))?.value).toBe(7);
  });

  test('leaves what lies below an allocation of another process, or below a handed-out value, and says how many', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    const blocks = new BlockAllocator(sequences, userid, fixed(100));
    expect(await blocks.take(1)).toEqual([1]);
    expect(await bed.sequences(db).allocate(userid)).toMatchObject({ first: 101 });
    expect(await blocks.close()).toEqual({ givenBack: 0, leftUnused: 99 });
    expect((await sequences.get(userid))?.value).toBe(101);

    const again = new BlockAllocator(sequences, userid, fixed(10));
    expect(await again.take(5)).toEqual([102, 103, 104, 105, 106]);
    again.giveBack([103]);
    // 107..111 go back; 103 lies below 104..106, which were handed out, so it stays a gap.
    expect(await again.close()).toEqual({ givenBack: 5, leftUnused: 1 });
    expect((await sequences.get(userid))?.value).toBe(106);
  });
});

describe('BlockAllocator counting what it drops', () => {
  test('every value it will never hand out is told once, with its reason; values handed out or given back to the counter never', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    const dropped: Array<[number, string]> = [];
    const counted = (count: number, reason: string) => dropped.push([count, reason]);
    const blocks = new BlockAllocator(sequences, userid, { ...fixed(100), onDropped: counted });
    expect(await blocks.take(1)).toEqual([1]);
    blocks.giveBack([1]);
    blocks.discardBlock(); // 2..100 and the given-back 1
    blocks.discardBlock(); // nothing held: nothing told
    expect(dropped).toEqual([[100, 'discarded']]);

    // An allocation in flight at the discard: the waiting take gets its value, the rest is dropped.
    const inFlight = blocks.take(1);
    blocks.discardBlock();
    expect(await inFlight).toEqual([101]);
    expect(dropped).toEqual([
      [100, 'discarded'],
      [99, 'discarded'],
    ]);

    // Refilled ahead, then discarded before the refill lands: all of the refill is dropped.
    const ahead = new BlockAllocator(sequences, userid, { ...fixed(10), onDropped: counted });
    expect(await ahead.take(6)).toEqual([201, 202, 203, 204, 205, 206]);
    expect(await ahead.take(1)).toEqual([207]); // 208..210 held, under half: 211..220 fetched ahead
    ahead.discardBlock();
    await ahead.close(); // waits for the refill, which lands discarded
    expect(dropped.slice(2)).toEqual([
      [3, 'discarded'],
      [10, 'discarded'],
    ]);

    // A clean shutdown: what cannot go back to the counter is dropped as `shutdown`.
    const last = new BlockAllocator(sequences, userid, { ...fixed(100), onDropped: counted });
    expect(await last.take(1)).toEqual([221]);
    expect(await bed.sequences(db).allocate(userid)).toMatchObject({ first: 321 });
    expect(await last.close()).toEqual({ givenBack: 0, leftUnused: 99 });
    expect(dropped.slice(4)).toEqual([[99, 'shutdown']]);
    const total = dropped.reduce((sum, [count]) => sum + count, 0);
    expect(total).toBe(100 + 99 + 3 + 10 + 99);
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
      const blocks = new BlockAllocator(sequences, userid, fixed(100));
      const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => blocks.take(1)));
      expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
      expect(allocate).toHaveBeenCalledTimes(1);
    } finally {
      await unreachable.close();
    }
  });
});
