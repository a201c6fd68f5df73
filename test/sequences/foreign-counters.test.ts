/**
 * Counters written by someone else with the wrong types (finding 10): nothing they hold ever
 * becomes an id. Each is refused with SEQUENCE_CORRUPT naming the document and the repair, and no
 * user is stored; an operator's repair makes the service work again.
 */
import { type Db, Double, Long } from 'mongodb';
import { SequenceCatalog } from '../../src/sequences';
import { COUNTER_FED_STRATEGIES } from '../../src/strategies';
import { UsersTestBed } from '../users/fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

const untrusted: Array<[string, unknown]> = [
  ['the string "17"', '17'],
  ['a double NaN', new Double(NaN)],
  ['the fraction 17.5', new Double(17.5)],
  ['an Int64 beyond 2^53', Long.fromString('9007199254740993')],
];

/** Writes a counter as another program might have: `fields` with their BSON types as given. */
function writeForeignCounter(db: Db, id: string, fields: Record<string, unknown>) {
  return db
    .collection('counters')
    .insertOne({ _id: id as never, name: id, start: Long.fromNumber(1), step: 1, ...fields });
}

describe.each(untrusted)('a userid counter whose seq is %s', (_, seq) => {
  test.each(COUNTER_FED_STRATEGIES)(
    '%s refuses to create, stores nothing, and names the repair',
    async (strategy) => {
      const { users, db } = await bed.fresh();
      await writeForeignCounter(db, 'userid', { seq });
      const attempt = users.createUser({ name: 'Ann' }, strategy);
      await expect(attempt).rejects.toMatchObject({ code: 'SEQUENCE_CORRUPT' });
      await expect(attempt).rejects.toThrow(/"userid".*seq.*db\.counters\.updateOne/);
      expect(await db.collection('users').countDocuments()).toBe(0);
    },
  );

  test('the catalog, peekNext and setValue forward refuse it too; a repair in mongosh makes it work', async () => {
    const { users, sequences, db } = await bed.fresh();
    const catalog = new SequenceCatalog(sequences, [users.idSequence]);
    await writeForeignCounter(db, 'userid', { seq });
    const corrupt = { code: 'SEQUENCE_CORRUPT' };
    await expect(catalog.get({ name: 'userid' }, { role: 'admin' })).rejects.toMatchObject(corrupt);
    expect((await catalog.list({ first: 10 }, { role: 'admin' })).entries).toEqual([
      { id: 'userid', error: expect.objectContaining(corrupt) },
    ]);
    await expect(catalog.peekNext({ name: 'userid' }, { role: 'admin' })).rejects.toMatchObject(
      corrupt,
    );
    await expect(catalog.setValue({ name: 'userid' }, 40, { role: 'admin' })).rejects.toMatchObject(
      corrupt,
    );
    await db
      .collection('counters')
      .updateOne({ _id: 'userid' as never }, { $set: { seq: Long.fromNumber(17) } });
    expect(Number((await users.createUser({ name: 'Ann' }, 'COUNTER')).user.id)).toBe(18);
  });
});

test('a sequence whose seq is NaN never issues a value through allocate (the old code issued 0)', async () => {
  const { sequences, db } = await bed.fresh();
  await writeForeignCounter(db, 'invoice', { seq: new Double(NaN) });
  await expect(sequences.allocate({ name: 'invoice' })).rejects.toMatchObject({
    code: 'SEQUENCE_CORRUPT',
  });
});

test('a tutorial-shaped counter with a fractional double seq is refused, not rounded', async () => {
  const { sequences, db } = await bed.fresh();
  await db.collection('counters').insertOne({ _id: 'legacy' as never, seq: new Double(2.5) });
  await expect(sequences.allocate({ name: 'legacy' })).rejects.toMatchObject({
    code: 'SEQUENCE_CORRUPT',
  });
  const raw = await db.collection('counters').findOne({ _id: 'legacy' as never });
  expect(raw?.seq).toBe(2.5);
});

test.each(COUNTER_FED_STRATEGIES)(
  '%s never issues an id <= 0 from a userid counter defined with start -3 (finding 1)',
  async (strategy) => {
    const { users, db } = await bed.fresh();
    await writeForeignCounter(db, 'userid', {
      seq: Long.fromNumber(-4),
      start: Long.fromNumber(-3),
    });
    const attempt = users.createUser({ name: 'Ann' }, strategy);
    await expect(attempt).rejects.toMatchObject({ code: 'SEQUENCE_CORRUPT' });
    await expect(attempt).rejects.toThrow(/user ids start at 1/);
    expect(await db.collection('users').countDocuments()).toBe(0);
  },
);

test('a counter with a name no sequence can have is left out of pages instead of failing them', async () => {
  const { users, sequences, db } = await bed.fresh();
  const catalog = new SequenceCatalog(sequences, [users.idSequence]);
  await catalog.create({ name: 'invoice' }, { role: 'admin' });
  await catalog.create({ name: 'ticket' }, { role: 'admin' });
  await writeForeignCounter(db, '$weird name', { seq: Long.fromNumber(3) });
  await db.collection('counters').insertOne({ _id: 'other' as never, name: 'mismatch', seq: 1 });
  const page = await catalog.list({ first: 10 }, { role: 'admin' });
  expect(page.entries.map((entry) => entry.id)).toEqual(['invoice', 'ticket']);
  // A page never ends on a left-out counter: pages of one still reach every sequence.
  const seen: string[] = [];
  let after: string | null = null;
  for (let pages = 0; pages < 5; pages += 1) {
    const one = await catalog.list({ first: 1, after }, { role: 'admin' });
    expect(one.entries).toHaveLength(1);
    seen.push(one.entries[0].id);
    if (!one.hasNextPage) break;
    after = one.entries[0].id;
  }
  expect(seen).toEqual(['invoice', 'ticket']);
});

test('an unreadable counter keeps its place in pages, as its error; the others still read', async () => {
  const { users, sequences, db } = await bed.fresh();
  const catalog = new SequenceCatalog(sequences, [users.idSequence]);
  await catalog.create({ name: 'alpha' }, { role: 'admin' });
  await catalog.create({ name: 'gamma' }, { role: 'admin' });
  await writeForeignCounter(db, 'beta', { seq: '17' });
  await db.collection('counters').insertOne({ _id: 'omega' as never, name: 'omega', seq: 'x' });
  const page = await catalog.list({ first: 3 }, { role: 'admin' });
  expect(page.hasNextPage).toBe(true);
  expect(page.entries).toEqual([
    { id: 'alpha', sequence: expect.objectContaining({ id: 'alpha', next: 1 }) },
    { id: 'beta', error: expect.objectContaining({ code: 'SEQUENCE_CORRUPT' }) },
    { id: 'gamma', sequence: expect.objectContaining({ id: 'gamma', next: 1 }) },
  ]);
  const rest = await catalog.list({ first: 3, after: 'gamma' }, { role: 'admin' });
  expect(rest).toEqual({
    entries: [
      {
        id: 'omega',
        error: expect.objectContaining({ message: expect.stringMatching(/"omega".*seq/) }),
      },
    ],
    hasNextPage: false,
    hasPreviousPage: true,
    totalCount: expect.any(Function),
  });
  // Counted as listed: the corrupt ones too.
  expect(await rest.totalCount()).toBe(4);
  const back = await catalog.list({ last: 2, before: 'omega' }, { role: 'admin' });
  expect(back.entries.map((entry) => entry.id)).toEqual(['beta', 'gamma']);
});

test('a counter typed in mongosh (doubles, an Int64 step) is rewritten as Int64 first, then allocates', async () => {
  const { sequences, db } = await bed.fresh();
  await db.collection('counters').insertOne({
    _id: 'typed' as never,
    name: 'typed',
    seq: new Double(41),
    start: new Double(1),
    step: Long.fromNumber(2),
  });
  const { range } = await sequences.allocateExisting({ name: 'typed' }, 2);
  expect(range).toEqual({ first: 43, last: 45, step: 2, count: 2 });
  const stored = await db
    .collection('counters')
    .findOne({ _id: 'typed' as never }, { promoteLongs: false });
  expect(stored?.seq).toEqual(Long.fromNumber(45));
  expect(stored?.start).toEqual(Long.fromNumber(1));
});

test('a counter that stores "no max" as max: null allocates (it answered ID_CONTENTION, retryable, forever)', async () => {
  const { sequences, db } = await bed.fresh();
  await writeForeignCounter(db, 'nullmax', { seq: Long.fromNumber(3), max: null });
  const { range } = await sequences.allocateExisting({ name: 'nullmax' }, 1);
  expect(range).toEqual({ first: 4, last: 4, step: 1, count: 1 });
  const stored = await db.collection('counters').findOne({ _id: 'nullmax' as never });
  expect(stored).not.toHaveProperty('max');
});
