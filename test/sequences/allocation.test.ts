import { Double, Long } from 'mongodb';
import { MAX_SEQUENCE_VALUE } from '../../src/sequences';
import { rawCounter, SequencesTestBed } from './fixture';

const bed = SequencesTestBed.forThisFile();

describe('allocation', () => {
  test('a counter used before anyone created it starts at 1 and counts up by 1', async () => {
    const sequences = bed.sequences(bed.db());
    expect(await sequences.allocate({ name: 'userid' })).toEqual({
      first: 1,
      last: 1,
      step: 1,
      count: 1,
    });
    expect((await sequences.allocate({ name: 'userid' })).first).toBe(2);
    expect(await sequences.allocate({ name: 'userid' }, 5)).toEqual({
      first: 3,
      last: 7,
      step: 1,
      count: 5,
    });
  });

  test('seq, start and max are stored as Int64 and step as Int32, never as doubles', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    await sequences.allocate({ name: 'userid' });
    await sequences.create({ name: 'invoice', start: 10, step: 2, max: 1000 });
    await sequences.allocate({ name: 'invoice' }, 3);

    const implicit = await rawCounter(db, 'userid');
    expect(implicit?.seq).toBeInstanceOf(Long);
    expect(implicit?.start).toBeInstanceOf(Long);
    expect(implicit?.step?._bsontype).toBe('Int32');
    const created = await rawCounter(db, 'invoice');
    expect(created?.seq).toEqual(Long.fromNumber(14));
    expect(created?.start).toBeInstanceOf(Long);
    expect(created?.max).toEqual(Long.fromNumber(1000));
    expect(created?.step?._bsontype).toBe('Int32');
  });

  test('values above 2^31 are issued and stored exactly', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    const start = 2 ** 31 + 5;
    await sequences.create({ name: 'big', start });
    const range = await sequences.allocate({ name: 'big' }, 2);
    expect(range).toEqual({ first: start, last: start + 1, step: 1, count: 2 });
    expect((await rawCounter(db, 'big'))?.seq).toEqual(Long.fromNumber(start + 1));
    expect(await sequences.peekNext({ name: 'big' })).toBe(start + 2);
  });

  test('a sequence without max issues up to 2^53 - 1 exactly, as documented, then is exhausted', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    await sequences.setValue({ name: 'userid' }, MAX_SEQUENCE_VALUE - 3);
    expect(await sequences.allocate({ name: 'userid' }, 2)).toEqual({
      first: MAX_SEQUENCE_VALUE - 2,
      last: MAX_SEQUENCE_VALUE - 1,
      step: 1,
      count: 2,
    });
    expect(await sequences.peekNext({ name: 'userid' })).toBe(MAX_SEQUENCE_VALUE);
    // 0.3 stopped here, one below the documented 2^53 - 1.
    expect(await sequences.allocate({ name: 'userid' })).toEqual({
      first: MAX_SEQUENCE_VALUE,
      last: MAX_SEQUENCE_VALUE,
      step: 1,
      count: 1,
    });
    await expect(sequences.allocate({ name: 'userid' })).rejects.toMatchObject({
      code: 'SEQUENCE_EXHAUSTED',
    });
    await expect(sequences.peekNext({ name: 'userid' })).rejects.toMatchObject({
      code: 'SEQUENCE_EXHAUSTED',
    });
    expect((await rawCounter(db, 'userid'))?.seq).toEqual(Long.fromNumber(MAX_SEQUENCE_VALUE));
    // No value follows within ±(2^53 - 1): an exhausted sequence shows no next.
    expect(await sequences.get({ name: 'userid' })).toMatchObject({
      value: MAX_SEQUENCE_VALUE,
      next: null,
    });
  });

  test('a sequence with a step stops at its last value not above 2^53 - 1', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    const key = { name: 'stepped' };
    // 2^53 - 1 is odd: from 1 by 2 the last value is 2^53 - 1 itself; from 2 by 2, 2^53 - 2.
    await sequences.create({ ...key, start: 2, step: 2 });
    await sequences.setValue(key, MAX_SEQUENCE_VALUE - 3);
    expect((await sequences.allocate(key)).first).toBe(MAX_SEQUENCE_VALUE - 1);
    await expect(sequences.allocate(key)).rejects.toMatchObject({ code: 'SEQUENCE_EXHAUSTED' });
    expect((await sequences.get(key))?.next).toBeNull();
  });

  test('in the steady state an allocation is exactly one database command', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    await sequences.allocate({ name: 'userid' });
    const tally = { commands: 0 };
    let sent = 0;
    for (const count of [1, 10, 1]) {
      sent += await bed.countCommands(db, 'findAndModify', () =>
        sequences.allocate({ name: 'userid' }, count, tally),
      );
    }
    expect(sent).toBe(3);
    expect(tally.commands).toBe(3);
  });

  test('every counter write carries the configured write concern (WRITE_CONCERN, majority by default)', async () => {
    const db = bed.db();
    const writeConcerns = async (options?: { writeConcern: { w: 1 } }) => {
      const sequences = bed.sequences(db, options);
      const sent = await bed.commandsSent(db, async () => {
        await sequences.create({ name: 'invoice', step: 2 });
        await sequences.allocate({ name: 'invoice' });
        await sequences.setValue({ name: 'invoice' }, 10);
        await sequences.repairCounterDrift({ name: 'invoice' }, 20);
      });
      return sent
        .filter((event) => event.commandName !== 'find')
        .map((event) => [event.commandName, event.command.writeConcern]);
    };
    const configured = { w: 'majority', wtimeout: 5000 };
    expect(await writeConcerns()).toEqual([
      ['insert', configured],
      ['findAndModify', configured],
      ['findAndModify', configured],
      ['update', configured],
    ]);
    expect((await writeConcerns({ writeConcern: { w: 1 } })).map(([, wc]) => wc)).toEqual([
      { w: 1 },
      { w: 1 },
      { w: 1 },
      { w: 1 },
    ]);
  });

  test('every command is bounded by maxTimeMS on the server (DB_TIMEOUT_MS, 5 s by default)', async () => {
    const db = bed.db();
    const boundsOf = async (options?: { maxTimeMS: number }) => {
      const sequences = bed.sequences(db, options);
      const sent = await bed.commandsSent(db, async () => {
        await sequences.create({ name: 'invoice' });
        await sequences.allocate({ name: 'invoice' });
        await sequences.peekNext({ name: 'invoice' });
        await sequences.page({ first: 10 });
        await sequences.setValue({ name: 'invoice' }, 10);
        await sequences.repairCounterDrift({ name: 'invoice' }, 20);
      });
      return new Set(sent.map((event) => event.command.maxTimeMS));
    };
    expect(await boundsOf()).toEqual(new Set([5_000]));
    expect(await boundsOf({ maxTimeMS: 750 })).toEqual(new Set([750]));
  });

  test('no upsert it sends has $expr in its query, which real MongoDB refuses (error 224)', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    const sent = await bed.commandsSent(db, async () => {
      await sequences.allocate({ name: 'userid' });
      await sequences.create({ name: 'seat', max: 2 });
      await sequences.allocate({ name: 'seat' }, 2);
      await sequences.allocate({ name: 'seat' }).catch(() => undefined);
      await sequences.setValue({ name: 'fresh' }, 5);
      await sequences.repairCounterDrift({ name: 'userid' }, 9);
    });
    const upserts = sent.flatMap((event) => {
      const { command } = event;
      if (event.commandName === 'findAndModify' && command.upsert) return [command.query];
      if (event.commandName === 'update') {
        return (command.updates as Array<{ q: object; upsert?: boolean }>)
          .filter((update) => update.upsert)
          .map((update) => update.q);
      }
      return [];
    });
    expect(upserts.length).toBeGreaterThanOrEqual(3);
    for (const query of upserts) expect(JSON.stringify(query)).not.toContain('$expr');
  });

  test('200 concurrent first-ever allocations from four processes get 200 distinct consecutive values', async () => {
    const db = bed.db();
    const processes = [1, 2, 3, 4].map(() => bed.sequences(db));
    const ranges = await Promise.all(
      Array.from({ length: 200 }, (_, i) => processes[i % 4].allocate({ name: 'userid' })),
    );
    const values = ranges.map((range) => range.first).sort((a, b) => a - b);
    expect(values).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect((await processes[0].get({ name: 'userid' }))?.value).toBe(200);
  });

  test('a counter written by the tutorial (double seq, no definition) continues and is upgraded to Int64', async () => {
    const db = bed.db();
    await db
      .collection<{ _id: string; seq: Double }>('counters')
      .insertOne({ _id: 'userid', seq: new Double(41) });
    const sequences = bed.sequences(db);
    expect((await sequences.allocate({ name: 'userid' })).first).toBe(42);
    const stored = await rawCounter(db, 'userid');
    expect(stored?.seq).toEqual(Long.fromNumber(42));
    expect(stored?.step?._bsontype).toBe('Int32');
  });

  test('a process whose cached definition is stale (counter re-created elsewhere) follows the stored one', async () => {
    const db = bed.db();
    const mine = bed.sequences(db);
    const theirs = bed.sequences(db);
    expect((await mine.allocate({ name: 'ticket' })).first).toBe(1);
    await db.collection<{ _id: string }>('counters').deleteOne({ _id: 'ticket' });
    await theirs.create({ name: 'ticket', start: 100, step: 3 });
    expect(await mine.allocate({ name: 'ticket' }, 2)).toEqual({
      first: 100,
      last: 103,
      step: 3,
      count: 2,
    });
    expect((await theirs.allocate({ name: 'ticket' })).first).toBe(106);
  });

  test('a process that cached a larger max is held to the max of a counter re-created elsewhere', async () => {
    const db = bed.db();
    const mine = bed.sequences(db);
    await mine.create({ name: 'seat', max: 10 });
    expect((await mine.allocate({ name: 'seat' })).first).toBe(1);
    await db.collection<{ _id: string }>('counters').deleteOne({ _id: 'seat' });
    await bed.sequences(db).create({ name: 'seat', max: 3 });
    expect((await mine.allocate({ name: 'seat' }, 3)).last).toBe(3);
    await expect(mine.allocate({ name: 'seat' })).rejects.toMatchObject({
      code: 'SEQUENCE_EXHAUSTED',
    });
  });

  test('a counter removed after this process cached its definition is created again implicitly', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    await sequences.create({ name: 'batch', start: 50, step: 5 });
    expect((await sequences.allocate({ name: 'batch' })).first).toBe(50);
    await db.collection<{ _id: string }>('counters').deleteOne({ _id: 'batch' });
    expect((await sequences.allocate({ name: 'batch' })).first).toBe(1);
  });

  test('an implicit counter is upserted until this process has seen it, then only incremented; removed, it is created again', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    const upsertsOf = (events: Array<{ command: Record<string, unknown> }>) =>
      events.map(({ command }) => [command.findAndModify ?? command.find, command.upsert ?? null]);
    const first = await bed.commandsSent(db, () => sequences.allocate({ name: 'visits' }));
    expect(upsertsOf(first)).toEqual([['counters', true]]);
    const known = await bed.commandsSent(db, () => sequences.allocate({ name: 'visits' }));
    expect(upsertsOf(known)).toEqual([['counters', false]]);
    expect(known[0].command.update).not.toHaveProperty('$setOnInsert');
    await db.collection<{ _id: string }>('counters').deleteOne({ _id: 'visits' });
    let again: unknown;
    const removed = await bed.commandsSent(db, async () => {
      again = await sequences.allocate({ name: 'visits' });
    });
    // Refused (no document), read, forgotten, then created again with the implicit definition.
    expect(upsertsOf(removed)).toEqual([
      ['counters', false],
      ['counters', null],
      ['counters', true],
    ]);
    expect(again).toEqual({ first: 1, last: 1, step: 1, count: 1 });
  });

  test('count must be a whole number from 1 to 10,000', async () => {
    const sequences = bed.sequences(bed.db());
    for (const count of [0, -1, 1.5, 10_001]) {
      await expect(sequences.allocate({ name: 'userid' }, count)).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'count',
      });
    }
    expect((await sequences.allocate({ name: 'userid' }, 10_000)).last).toBe(10_000);
  });
});
