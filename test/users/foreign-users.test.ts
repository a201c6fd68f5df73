/**
 * Users written by someone else with `_id`s no strategy can follow (finding 10): a string, NaN, a
 * negative number, a fraction. They never block the numeric strategies, never count for max + 1
 * or drift, and never appear as users.
 */
import { Decimal128, Double, Long } from 'mongodb';
import { strategiesWhere } from '../../src/strategies';
import { UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

const foreignIds: unknown[] = [
  'abc',
  'zzz-imported',
  new Double(NaN),
  Long.fromNumber(-5),
  new Double(0),
  new Double(Infinity),
];

describe.each(strategiesWhere('consecutiveIds'))('%s beside foreign _ids', (strategy) => {
  test('creates users from 1 and ignores them for max and pages', async () => {
    const { users, db } = await bed.fresh();
    await db
      .collection('users')
      .insertMany(foreignIds.map((_id, i) => ({ _id: _id as never, name: `foreign ${i}` })));
    const created = [];
    for (const name of ['a', 'b', 'c'])
      created.push(Number((await users.createUser({ name }, strategy)).user.id));
    expect(created).toEqual([1, 2, 3]);
    expect(await users.maxId()).toBe(3);
    const page = await users.page({ first: 100, order: 'ASC' });
    expect(page.users.map((user) => Number(user.id))).toEqual([1, 2, 3]);
  });
});

test('a fractional or Decimal128 _id counts as its whole part for the optimistic loop', async () => {
  const { users, db } = await bed.fresh();
  await db.collection('users').insertOne({ _id: new Double(17.5) as never, name: 'fraction' });
  expect(await users.maxId()).toBe(17);
  expect(Number((await users.createUser({ name: 'next' }, 'OPTIMISTIC_LOOP')).user.id)).toBe(18);
  await db
    .collection('users')
    .insertOne({ _id: Decimal128.fromString('40') as never, name: 'decimal' });
  expect(await users.maxId()).toBe(40);
  expect(
    Number((await users.createUser({ name: 'after decimal' }, 'OPTIMISTIC_LOOP')).user.id),
  ).toBe(41);
});
