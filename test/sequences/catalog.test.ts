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
    // Taken by another client: one answer, whatever its definition, naming neither owner nor values.
    const taken = { code: 'BAD_USER_INPUT', field: 'name' };
    const message =
      'The name of sequence "invoice" (scope "acme") is not available (names are shared by every client of this service); choose another name or scope.';
    for (const attempt of [invoice, { ...invoice, start: 1000, max: 9999 }]) {
      const refusal = catalog.create(attempt, shipping);
      await expect(refusal).rejects.toMatchObject(taken);
      await expect(refusal).rejects.toThrow(message);
    }
    // Nothing the other client did consumed a value (finding 2: the owner's next call still works).
    const mine = await catalog.allocate(invoice, 3, billing);
    expect(mine.range).toEqual({ first: 1000, last: 1002, step: 1, count: 3 });
    expect(mine.sequence).toMatchObject({ id: 'invoice/acme', value: 1002, next: 1003 });
    expect(await catalog.get(invoice, admin)).toMatchObject({ owner: 'billing', value: 1002 });
    expect((await catalog.allocate(invoice, 1, admin)).range.first).toBe(1003);
    expect(await db.collection('counters').countDocuments()).toBe(1);
  });

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
    expect((await catalog.allocate(ticket, 1, admin)).range.first).toBe(42);
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
