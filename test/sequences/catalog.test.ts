/**
 * SequenceCatalog: ownership, the reserved `userid`, only `create` creating, and pages; over the
 * real driver with the real Users component (which owns `userid`).
 */
import { Long } from 'mongodb';
import { SequenceCatalog, type SequenceAccess } from '../../src/sequences';
import { UsersTestBed } from '../users/fixture';

const admin: SequenceAccess = { role: 'admin' };
const billing: SequenceAccess = { role: 'client', client: 'billing' };
const shipping: SequenceAccess = { role: 'client', client: 'shipping' };
const invoice = { name: 'invoice', scope: 'acme' };

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

async function catalogUnderTest(options?: Parameters<UsersTestBed['fresh']>[0]) {
  const fresh = await bed.fresh(options);
  return { ...fresh, catalog: new SequenceCatalog(fresh.sequences, [fresh.users.idSequence]) };
}

describe('ownership', () => {
  test("a client's sequence is invisible and unusable to other clients, and admin sees it", async () => {
    const { catalog, db } = await catalogUnderTest();
    const created = await catalog.create({ ...invoice, start: 1000, max: 9999 }, billing);
    expect(created).toMatchObject({ id: 'invoice/acme', owner: 'billing', next: 1000 });

    expect(await catalog.get(invoice, shipping)).toBeNull();
    expect((await catalog.list({ first: 10 }, shipping)).entries).toEqual([]);
    const notFound = { code: 'SEQUENCE_NOT_FOUND', field: 'name' };
    await expect(catalog.allocate(invoice, 8999, shipping)).rejects.toMatchObject(notFound);
    await expect(catalog.setValue(invoice, 5000, shipping)).rejects.toMatchObject(notFound);
    await expect(catalog.peekNext(invoice, shipping)).rejects.toMatchObject(notFound);
    // The owner's next call still works, and nothing the other client did touched it.
    const mine = await catalog.allocate(invoice, 3, billing);
    expect(mine.range).toEqual({
      first: 1000,
      last: 1002,
      step: 1,
      count: 3,
      period: null,
      formatted: null,
    });
    expect(mine.sequence).toMatchObject({ id: 'invoice/acme', value: 1002, next: 1003 });
    // Admin sees the stored id, and names a client's sequence `<client>~<name>`.
    expect(await catalog.get(invoice, admin)).toBeNull();
    const billingsAsAdmin = { name: 'billing~invoice', scope: 'acme' };
    expect(await catalog.get(billingsAsAdmin, admin)).toMatchObject({
      id: 'billing~invoice/acme',
      owner: 'billing',
      value: 1002,
    });
    expect((await catalog.allocate(billingsAsAdmin, 1, admin)).range!.first).toBe(1003);
    expect(await catalog.getById('billing~invoice/acme', admin)).toMatchObject({ value: 1003 });
    expect(await db.collection('counters').countDocuments()).toBe(1);
  });

  test('ids from a client are in its namespace: another client’s stored id is malformed, as any', async () => {
    const { catalog } = await catalogUnderTest();
    await catalog.create(invoice, billing);
    expect(await catalog.getById('invoice/acme', billing)).toMatchObject({ owner: 'billing' });
    expect(await catalog.getById('invoice/acme', shipping)).toBeNull();
    for (const id of ['billing~invoice/acme', 'shipping~invoice/acme', 'nobody~x']) {
      await expect(catalog.getById(id, shipping)).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'id',
      });
    }
    const cursor = catalog.list({ first: 5, after: 'billing~invoice/acme' }, shipping);
    await expect(cursor).rejects.toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
  });
});

describe('namespaces: creating a name another client uses tells nothing (issue 18)', () => {
  /** A created state with what differs between two names of one caller taken out. */
  const shape = (state: Record<string, unknown>) => {
    const { id: _id, name: _name, updatedAt: _updatedAt, ...rest } = state;
    return rest;
  };

  test.each([
    ['the same definition', {}],
    ['another definition', { start: 1000, max: 9999 }],
    ['a gapless definition', { gapless: true }],
  ])(
    'with %s: the same answer and the same commands as for a name nobody uses',
    async (_label, definition) => {
      const under = await catalogUnderTest();
      const { catalog, db } = under;
      await catalog.create({ ...invoice, start: 5, step: 2 }, billing);
      await catalog.allocate(invoice, 2, billing);
      const before = await db
        .collection('counters')
        .findOne({ _id: 'billing~invoice/acme' as never });

      let taken!: Record<string, unknown>;
      let free!: Record<string, unknown>;
      const takenCommands = await under.commandsDuring(async () => {
        taken = { ...(await catalog.create({ ...invoice, ...definition }, shipping)) };
      });
      const freeCommands = await under.commandsDuring(async () => {
        free = {
          ...(await catalog.create({ ...invoice, name: 'unused', ...definition }, shipping)),
        };
      });
      expect(taken).toMatchObject({ id: 'invoice/acme', name: 'invoice', owner: 'shipping' });
      expect(free).toMatchObject({ id: 'unused/acme', name: 'unused', owner: 'shipping' });
      expect(shape(taken)).toEqual(shape(free));
      expect(takenCommands).toEqual(freeCommands);
      // Two counters: the other client's is untouched, and each allocates its own values.
      expect(
        await db.collection('counters').findOne({ _id: 'billing~invoice/acme' as never }),
      ).toEqual(before);
      if (!('gapless' in definition)) {
        const theirs = await catalog.allocate(invoice, 1, shipping);
        expect(theirs.range!.first).toBe((definition as { start?: number }).start ?? 1);
        expect((await catalog.allocate(invoice, 1, billing)).range!.first).toBe(9);
      }
    },
  );

  test('creating it again answers the caller’s own sequence, never the other client’s definition', async () => {
    const { catalog } = await catalogUnderTest();
    await catalog.create({ ...invoice, start: 1000 }, billing);
    await catalog.create(invoice, shipping);
    await expect(catalog.create({ ...invoice, start: 1000 }, shipping)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'start',
    });
    await expect(catalog.create({ ...invoice, start: 1000 }, shipping)).rejects.toThrow(
      'already exists with start 1',
    );
    expect(await catalog.create(invoice, shipping)).toMatchObject({ owner: 'shipping', next: 1 });
  });

  test('the admin lists every namespace in name, scope, id order, and pages across them exactly', async () => {
    const { catalog } = await catalogUnderTest();
    await catalog.create(invoice, shipping);
    await catalog.create(invoice, billing);
    await catalog.create(invoice, admin);
    await catalog.create({ name: 'invoice' }, billing);
    const expected = [
      'billing~invoice',
      'billing~invoice/acme',
      'invoice/acme',
      'shipping~invoice/acme',
    ];
    for (const first of [1, 2, 10]) {
      const seen: string[] = [];
      let after: string | null = null;
      for (let pages = 0; pages < 10; pages += 1) {
        const page = await catalog.list({ first, after }, admin);
        seen.push(...page.entries.map((e) => e.id));
        if (!page.hasNextPage) break;
        after = page.entries[page.entries.length - 1].id;
      }
      expect(seen).toEqual(expected);
    }
    const backwards = await catalog.list({ last: 2, before: 'shipping~invoice/acme' }, admin);
    expect(backwards.entries.map((e) => e.id)).toEqual(['billing~invoice/acme', 'invoice/acme']);
    expect(backwards.hasPreviousPage).toBe(true);
  });

  test('0.3 counters of a client move into its namespace at start, values and all', async () => {
    const { catalog, db } = await catalogUnderTest();
    const counters = db.collection('counters');
    const legacy = {
      name: 'invoice',
      scope: 'acme',
      owner: 'billing',
      seq: Long.fromNumber(41),
      start: Long.fromNumber(1),
      step: 1,
    };
    const { scope: _scope, ...unscoped } = legacy;
    await counters.insertMany([
      { _id: 'invoice/acme' as never, ...legacy },
      // A start stopped between the copy and the removal: the copy is there already.
      { _id: 'ticket' as never, ...unscoped, name: 'ticket' },
      { _id: 'billing~ticket' as never, ...unscoped, name: 'ticket' },
      // Its new id holds a different counter: left in place, reported.
      { _id: 'order' as never, ...unscoped, name: 'order' },
      { _id: 'billing~order' as never, ...unscoped, name: 'order', seq: 7 },
      // Admin's and 0.1's: no owner, they stay.
      { _id: 'shared' as never, name: 'shared', seq: Long.fromNumber(3) },
    ]);
    const moved = await catalog.moveOwnedCounters();
    expect(moved).toEqual({
      moved: ['invoice/acme → billing~invoice/acme', 'ticket → billing~ticket'],
      conflicts: ['order'],
    });
    expect((await counters.find().sort({ _id: 1 }).toArray()).map((doc) => doc._id)).toEqual([
      'billing~invoice/acme',
      'billing~order',
      'billing~ticket',
      'order',
      'shared',
    ]);
    expect((await catalog.allocate(invoice, 1, billing)).range!.first).toBe(42);
    expect(await catalog.get(invoice, shipping)).toBeNull();
    expect(await catalog.moveOwnedCounters()).toEqual({ moved: [], conflicts: ['order'] });
  });
});

describe('ownership, 0.1', () => {
  test('a counter written by version 0.1 (no owner) is admin-only', async () => {
    const { catalog, db } = await catalogUnderTest();
    await db.collection('counters').insertOne({
      _id: 'ticket' as never,
      name: 'ticket',
      seq: Long.fromNumber(41),
      start: Long.fromNumber(1),
      step: 1,
    });
    const ticket = { name: 'ticket' };
    expect(await catalog.get(ticket, billing)).toBeNull();
    await expect(catalog.allocate(ticket, 1, billing)).rejects.toMatchObject({
      code: 'SEQUENCE_NOT_FOUND',
    });
    expect((await catalog.allocate(ticket, 1, admin)).range!.first).toBe(42);
    expect((await catalog.list({ first: 10 }, admin)).entries.map((e) => e.id)).toEqual(['ticket']);
  });

  test('only create creates: allocate, setValue and peekNext of an undefined name write nothing', async () => {
    const { catalog, db } = await catalogUnderTest();
    const typo = { name: 'invioce' };
    for (const access of [admin, billing]) {
      await expect(catalog.allocate(typo, 1, access)).rejects.toMatchObject({
        code: 'SEQUENCE_NOT_FOUND',
      });
      await expect(catalog.setValue(typo, 5, access)).rejects.toMatchObject({
        code: 'SEQUENCE_NOT_FOUND',
      });
      await expect(catalog.peekNext(typo, access)).rejects.toMatchObject({
        code: 'SEQUENCE_NOT_FOUND',
      });
    }
    expect(await db.collection('counters').countDocuments()).toBe(0);
  });
});

describe('userid belongs to users', () => {
  test.each([
    ['start -3', { start: -3 }, 'start'],
    ['max 2', { max: 2 }, 'max'],
    ['step 2', { step: 2 }, 'step'],
  ])(
    'creating it with %s is refused and creates nothing (finding 1)',
    async (_, options, field) => {
      const { catalog, users, db } = await catalogUnderTest();
      await expect(catalog.create({ name: 'userid', ...options }, admin)).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field,
      });
      expect(await db.collection('counters').countDocuments()).toBe(0);
      expect(Number((await users.createUser({ name: 'first' }, 'COUNTER')).user.id)).toBe(1);
    },
  );

  test('clients read it but can neither create, set nor allocate it; admin creates it with the defaults', async () => {
    const { catalog, users } = await catalogUnderTest();
    const userid = { name: 'userid' };
    const forbidden = { code: 'FORBIDDEN', field: 'name' };
    await expect(catalog.create(userid, billing)).rejects.toMatchObject(forbidden);
    expect(await catalog.get(userid, billing)).toMatchObject({ id: 'userid', value: 0, next: 1 });
    expect(await catalog.peekNext(userid, billing)).toBe(1);
    await users.createUser({ name: 'advances it' }, 'COUNTER');
    expect(await catalog.peekNext(userid, billing)).toBe(2);
    expect((await catalog.list({ first: 10 }, billing)).entries.map((entry) => entry.id)).toEqual([
      'userid',
    ]);
    await expect(catalog.setValue(userid, 100, billing)).rejects.toMatchObject(forbidden);
    await expect(catalog.allocate(userid, 1, billing)).rejects.toMatchObject(forbidden);
    expect(await catalog.create(userid, admin)).toMatchObject({ value: 1, next: 2, drift: 0 });
    expect(await catalog.peekNext(userid, admin)).toBe(2);
  });

  test('a BLOCK reservation cannot be reissued: no allocation, and setValue only moves forward (finding 7)', async () => {
    const { catalog, users, db } = await catalogUnderTest();
    const reserved = await users.createUser({ name: 'holds a block' }, 'BLOCK');
    expect(Number(reserved.user.id)).toBe(1); // this process holds 2..100 in memory
    const userid = { name: 'userid' };
    await expect(catalog.allocate(userid, 5, admin)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(catalog.setValue(userid, 1, admin)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'value',
    });
    expect(await catalog.get(userid, admin)).toMatchObject({ value: 100, drift: 99 });
    expect(await catalog.setValue(userid, 500, admin)).toMatchObject({ value: 500, drift: 499 });
    const more = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => users.createUser({ name: `more ${i}` }, 'BLOCK')),
    );
    const ids = more.map((created) => Number(created.user.id)).sort((a, b) => a - b);
    expect(ids).toEqual([2, 3, 4, 5, 6]);
    const counter = await users.createUser({ name: 'counter' }, 'COUNTER');
    expect(Number(counter.user.id)).toBe(501);
    expect(await db.collection('users').countDocuments()).toBe(7);
  });

  test('admin reads it implicitly before it exists, with its drift', async () => {
    const { catalog, users } = await catalogUnderTest();
    await users.createUser({ name: 'a' }, 'OPTIMISTIC_LOOP');
    await users.createUser({ name: 'b' }, 'OPTIMISTIC_LOOP');
    expect(await catalog.get({ name: 'userid' }, admin)).toMatchObject({
      id: 'userid',
      value: 0,
      next: 1,
      drift: -2,
      owner: null,
    });
  });
});

describe('pages', () => {
  test('ordered by name then scope (unscoped first), capped, with a cursor that resumes exactly', async () => {
    const { catalog } = await catalogUnderTest();
    const keys = [
      { name: 'order' },
      { name: 'invoice', scope: 'zeta' },
      { name: 'invoice' },
      { name: 'invoice-x' },
      { name: 'invoice', scope: 'acme' },
    ];
    for (const key of keys) await catalog.create(key, billing);
    await catalog.create({ name: 'hidden' }, shipping);
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await catalog.list({ first: 2, after }, billing);
      seen.push(...page.entries.map((e) => e.id));
      if (!page.hasNextPage) break;
      after = page.entries[page.entries.length - 1].id;
    }
    expect(seen).toEqual(['invoice', 'invoice/acme', 'invoice/zeta', 'invoice-x', 'order']);
    const scoped = await catalog.list({ first: 10, scope: 'acme' }, billing);
    expect(scoped.entries.map((e) => e.id)).toEqual(['invoice/acme']);
    expect((await catalog.list({ first: 100 }, admin)).entries).toHaveLength(6);
  });

  test('page sizes outside 1..100 and cursors that are not sequence ids are refused', async () => {
    const { catalog } = await catalogUnderTest();
    for (const first of [0, 101, 1.5]) {
      await expect(catalog.list({ first }, admin)).rejects.toMatchObject({ field: 'first' });
    }
    for (const after of ['', 'a/b/c', '{"$gt":""}', '1abc']) {
      await expect(catalog.list({ first: 5, after }, admin)).rejects.toMatchObject({
        field: 'after',
      });
    }
  });
});
