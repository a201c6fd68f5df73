import { Long } from 'mongodb';
import { rawCounter, SequencesTestBed } from './fixture';

const bed = SequencesTestBed.forThisFile();

describe('sequence definitions', () => {
  test('start and step shape the values; value and next describe the counter', async () => {
    const sequences = bed.sequences(bed.db());
    const created = await sequences.create({ name: 'invoice', start: 1000, step: 10 });
    expect(created).toMatchObject({
      name: 'invoice',
      scope: null,
      start: 1000,
      step: 10,
      max: null,
      value: 990,
      next: 1000,
    });
    expect(await sequences.allocate({ name: 'invoice' }, 3)).toEqual({
      first: 1000,
      last: 1020,
      step: 10,
      count: 3,
    });
    expect(await sequences.get({ name: 'invoice' })).toMatchObject({ value: 1020, next: 1030 });
  });

  test('creating again with the same options returns the sequence unchanged', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    await sequences.create({ name: 'order', start: 5, step: 2, max: 99 });
    await sequences.allocate({ name: 'order' });
    const elsewhere = await bed.sequences(db).create({ name: 'order', start: 5, step: 2, max: 99 });
    expect(elsewhere.value).toBe(5);
    const same = await sequences.create({ name: 'order', start: 5, step: 2, max: 99 });
    expect(same).toMatchObject({ start: 5, step: 2, max: 99, value: 5, next: 7 });
  });

  test('creating again with other options is refused, naming the conflicting field', async () => {
    const sequences = bed.sequences(bed.db());
    const order = { name: 'order', start: 5, step: 2, max: 99 };
    await sequences.create(order);
    for (const [change, field] of [
      [{ start: 6 }, 'start'],
      [{ step: 3 }, 'step'],
      [{ max: 100 }, 'max'],
      [{ max: null }, 'max'],
    ] as const) {
      await expect(sequences.create({ ...order, ...change })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field,
      });
    }
    expect(await sequences.get({ name: 'order' })).toMatchObject({ start: 5, step: 2, max: 99 });
  });

  test('a counter already used implicitly can be created with the defaults, not with others', async () => {
    const sequences = bed.sequences(bed.db());
    await sequences.allocate({ name: 'userid' }, 3);
    expect(await sequences.create({ name: 'userid' })).toMatchObject({ value: 3, next: 4 });
    await expect(sequences.create({ name: 'userid', step: 2 })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'step',
    });
  });

  test('max may be 2^53 - 1 itself, whatever the step (0.3 refused above 2^53 - 1 - step)', async () => {
    const sequences = bed.sequences(bed.db());
    for (const [name, step] of [
      ['edge1', 1],
      ['edge10', 10],
    ] as const) {
      expect(await sequences.create({ name, step, max: 2 ** 53 - 1 })).toMatchObject({
        max: 2 ** 53 - 1,
      });
    }
  });

  test('invalid definitions, names and scopes are refused with the field named, and nothing is stored', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    const cases = [
      [{ name: 'a', step: 0 }, 'step'],
      [{ name: 'a', step: -1 }, 'step'],
      [{ name: 'a', step: 1.5 }, 'step'],
      [{ name: 'a', step: 2 ** 31 }, 'step'],
      [{ name: 'a', start: 10, max: 9 }, 'max'],
      [{ name: 'a', start: 2 ** 53 }, 'start'],
      [{ name: 'a', start: -(2 ** 53 - 1) }, 'start'],
      [{ name: 'a', max: 2 ** 53 }, 'max'],
      [{ name: '1abc' }, 'name'],
      [{ name: 'a/b' }, 'name'],
      [{ name: '$where' }, 'name'],
      [{ name: 'a'.repeat(65) }, 'name'],
      [{ name: 'a', scope: '' }, 'scope'],
      [{ name: 'a', scope: 'x.$gt' }, 'scope'],
    ] as const;
    for (const [input, field] of cases) {
      await expect(sequences.create(input)).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field,
      });
    }
    expect(await db.collection('counters').countDocuments()).toBe(0);
    expect(await sequences.create({ name: 'a'.repeat(64), scope: 'Z9_.-' })).toMatchObject({
      next: 1,
    });
    expect(await sequences.create({ name: 'top', step: 10, max: 2 ** 53 - 11 })).toMatchObject({
      max: 2 ** 53 - 11,
    });
  });

  test('max: allocations up to it succeed; one past it is SEQUENCE_EXHAUSTED and consumes nothing', async () => {
    const db = bed.db();
    const sequences = bed.sequences(db);
    await sequences.create({ name: 'seat', start: 1, step: 1, max: 5 });
    expect((await sequences.allocate({ name: 'seat' }, 4)).last).toBe(4);
    await expect(sequences.allocate({ name: 'seat' }, 2)).rejects.toMatchObject({
      code: 'SEQUENCE_EXHAUSTED',
    });
    expect((await rawCounter(db, 'seat'))?.seq).toEqual(Long.fromNumber(4));
    expect(await sequences.allocate({ name: 'seat' })).toMatchObject({ first: 5, last: 5 });
    await expect(sequences.allocate({ name: 'seat' })).rejects.toMatchObject({
      code: 'SEQUENCE_EXHAUSTED',
    });
    await expect(bed.sequences(db).allocate({ name: 'seat' })).rejects.toMatchObject({
      code: 'SEQUENCE_EXHAUSTED',
    });
    expect((await rawCounter(db, 'seat'))?.seq).toEqual(Long.fromNumber(5));
  });

  test('interleaved offsets (start 1 and 2, step 2) in two processes never collide', async () => {
    const db = bed.db();
    const east = bed.sequences(db);
    const west = bed.sequences(db);
    await east.create({ name: 'order', scope: 'east', start: 1, step: 2 });
    await west.create({ name: 'order', scope: 'west', start: 2, step: 2 });
    const ranges = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        i % 2 === 0
          ? east.allocate({ name: 'order', scope: 'east' }, 3)
          : west.allocate({ name: 'order', scope: 'west' }, 3),
      ),
    );
    const values = ranges.flatMap((r) => [r.first, r.first + r.step, r.last]);
    expect(new Set(values).size).toBe(300);
    expect(values.sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  });

  test('scopes are independent counters under one name', async () => {
    const sequences = bed.sequences(bed.db());
    await sequences.allocate({ name: 'invoice', scope: 'acme' }, 7);
    expect((await sequences.allocate({ name: 'invoice', scope: 'globex' })).first).toBe(1);
    expect((await sequences.allocate({ name: 'invoice' })).first).toBe(1);
    expect((await sequences.allocate({ name: 'invoice', scope: 'acme' })).first).toBe(8);
    expect(await sequences.peekNext({ name: 'invoice', scope: 'globex' })).toBe(2);
    expect(await sequences.peekNext({ name: 'invoice', scope: 'initech' })).toBe(1);
  });

  test('a page is ordered by name then scope (unscoped first) and narrows to one scope', async () => {
    const sequences = bed.sequences(bed.db());
    for (const key of [
      { name: 'zeta' },
      { name: 'invoice', scope: 'globex' },
      { name: 'invoice' },
      { name: 'invoice', scope: 'acme' },
      { name: 'alpha', scope: 'acme' },
    ]) {
      await sequences.allocate(key);
    }
    const listed = (await sequences.page({ first: 100 })).entries.map((entry) => entry.id);
    expect(listed).toEqual(['alpha/acme', 'invoice', 'invoice/acme', 'invoice/globex', 'zeta']);
    const acme = (await sequences.page({ first: 100, scope: 'acme' })).entries.map((e) => e.id);
    expect(acme).toEqual(['alpha/acme', 'invoice/acme']);
    expect((await sequences.page({ first: 100, scope: null })).entries).toHaveLength(5);
    await expect(sequences.page({ first: 100, scope: '$ne' })).rejects.toMatchObject({
      field: 'scope',
    });
  });
});
