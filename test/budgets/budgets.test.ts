/**
 * The budgets component on its own (src/budgets), over the real driver:
 * - the defaults are src/limits.ts `BUDGETS` (what docs/operations.md states), and `BUDGETS`
 *   overrides them, turns them off, or stops the start with a message naming the variable;
 * - a charge costs a database command per lease, not per charge: 100 charges of a budget of 2,000
 *   send one `findAndModify`;
 * - with the database unreachable the in-process fallback still holds each caller to its budget;
 * - the client address: the peer's unless `TRUST_PROXY` trusts proxies, then the Nth from the right.
 */
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { clientAddress } from '../../src/auth';
import { Budgets, RateLimitedError } from '../../src/budgets';
import { ConfigError, loadConfig } from '../../src/config';
import { BUDGETS } from '../../src/limits';
import { testMongoUri, uniqueDbName } from '../support/db';
import { freePort } from '../support/ports';

describe('BUDGETS', () => {
  test('the defaults are the table of src/limits.ts, a sign-up page 30 users per 10 minutes', () => {
    const { BUDGETS: table } = loadConfig({});
    expect(table).toEqual(BUDGETS);
    expect(table?.usersCreated.anonymous).toEqual({ points: 30, seconds: 600 });
    expect(table?.usersCreated.client).toEqual({ points: 1_000_000, seconds: 3_600 });
    for (const budget of Object.values(BUDGETS)) expect(budget.admin).toBeNull();
  });

  test('overrides, unlimited and off', () => {
    const { BUDGETS: table } = loadConfig({
      BUDGETS: 'usersCreated.anonymous=5/60, gapsScans.client=unlimited,usersCreated.admin=7/1',
    });
    expect(table?.usersCreated).toEqual({
      anonymous: { points: 5, seconds: 60 },
      client: BUDGETS.usersCreated.client,
      admin: { points: 7, seconds: 1 },
    });
    expect(table?.gapsScans.client).toBeNull();
    expect(loadConfig({ BUDGETS: 'off' }).BUDGETS).toBeNull();
  });

  test.each([
    ['users.anonymous=5/60', /BUDGETS: "users.anonymous=5\/60" is not budget.role/],
    ['usersCreated.guest=5/60', /is not budget.role/],
    ['usersCreated.client=5', /is not budget.role/],
    ['usersCreated.client=5/0', /usersCreated.client: the window must be at least 1 second/],
  ])('%s is refused at start', (value, message) => {
    expect(() => loadConfig({ BUDGETS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ BUDGETS: value })).toThrow(message);
  });

  test('TRUST_PROXY is a number of proxies, 0 by default', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(() => loadConfig({ TRUST_PROXY: 'loopback' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: '11' })).toThrow(/TRUST_PROXY must be 0 to 10/);
  });
});

describe('charging', () => {
  let client: MongoClient;
  const commands: CommandStartedEvent[] = [];

  beforeAll(async () => {
    client = await new MongoClient(testMongoUri(), { monitorCommands: true }).connect();
    client.on('commandStarted', (event) => commands.push(event));
  });

  afterAll(async () => {
    await client?.close();
  });

  const table = (points: number) => ({
    ...BUDGETS,
    usersCreated: { anonymous: { points, seconds: 600 }, client: null, admin: null },
  });

  test('ensureIndexes gives the budgets collection its TTL index, so ended windows are deleted', async () => {
    const db = client.db(uniqueDbName('budget-indexes'));
    await new Budgets(db, { table: table(10), maxTimeMS: 5_000 }).ensureIndexes();
    expect(await db.collection('budgets').indexes()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: { key: 1 }, unique: true }),
        expect.objectContaining({ key: { expire: -1 }, expireAfterSeconds: 0 }),
      ]),
    );
  });

  test('one database command per lease: 100 charges of a budget of 2,000 send one', async () => {
    const db = client.db(uniqueDbName('budget-leases'));
    const budgets = new Budgets(db, { table: table(2_000), maxTimeMS: 5_000 });
    await budgets.ensureIndexes();
    commands.length = 0;
    const caller = { role: 'anonymous' as const, id: '192.0.2.1' };
    for (let i = 0; i < 100; i += 1) await budgets.charge(caller, 'usersCreated', 1);
    const sent = commands.filter((event) => event.databaseName === db.databaseName);
    expect(sent.map((event) => event.commandName)).toEqual(['findAndModify']);
    // The lease is counted whole in the database: other instances see it spent.
    const stored = await db
      .collection('budgets')
      .findOne({ key: 'usersCreated:anonymous:192.0.2.1' });
    expect(stored?.points).toBe(100);
    const [standing] = await budgets.standing(caller);
    expect(standing).toMatchObject({ budget: 'usersCreated', limit: 2_000, remaining: 1_900 });
  });

  test('concurrent charges of one caller share one lease request, and stop at the budget', async () => {
    const db = client.db(uniqueDbName('budget-concurrent'));
    const budgets = new Budgets(db, { table: table(40), maxTimeMS: 5_000 });
    await budgets.ensureIndexes();
    commands.length = 0;
    const caller = { role: 'anonymous' as const, id: '192.0.2.2' };
    const settled = await Promise.allSettled(
      Array.from({ length: 100 }, async () => budgets.charge(caller, 'usersCreated', 1)),
    );
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(40);
    for (const refused of settled.filter((s) => s.status === 'rejected')) {
      expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(RateLimitedError);
    }
    // Leases of 2 (a twentieth of 40): 20 of them, and one more that found the budget spent.
    const sent = commands.filter((event) => event.databaseName === db.databaseName);
    expect(sent.length).toBeLessThanOrEqual(21);
  });

  test('with the database unreachable, the in-process fallback holds the caller to its budget', async () => {
    const nowhere = new MongoClient(`mongodb://127.0.0.1:${await freePort()}/`, {
      serverSelectionTimeoutMS: 200,
      connectTimeoutMS: 200,
    });
    try {
      const budgets = new Budgets(nowhere.db('budgets'), { table: table(3), maxTimeMS: 1_000 });
      const caller = { role: 'anonymous' as const, id: '192.0.2.3' };
      for (let i = 0; i < 3; i += 1) await budgets.charge(caller, 'usersCreated', 1);
      await expect(async () => budgets.charge(caller, 'usersCreated', 1)).rejects.toBeInstanceOf(
        RateLimitedError,
      );
      // Another caller has a budget of its own.
      await budgets.charge({ role: 'anonymous', id: '192.0.2.4' }, 'usersCreated', 1);
    } finally {
      await nowhere.close();
    }
  });
});

describe('clientAddress', () => {
  const source = (peer: string, forwarded?: string) => ({
    socket: { remoteAddress: peer },
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
  });

  test('the peer, whatever the header says, unless proxies are trusted', () => {
    expect(clientAddress(source('10.0.0.9', '1.2.3.4') as never, 0)).toBe('10.0.0.9');
    expect(clientAddress(source('::ffff:10.0.0.9') as never, 0)).toBe('10.0.0.9');
  });

  test('with N trusted proxies, the Nth address from the right', () => {
    const chain = source('10.0.0.1', 'spoofed, 198.51.100.7, 10.0.0.2');
    expect(clientAddress(chain as never, 1)).toBe('10.0.0.2');
    expect(clientAddress(chain as never, 2)).toBe('198.51.100.7');
    // A header shorter than the trusted chain: the leftmost address, never beyond.
    expect(clientAddress(source('10.0.0.1', '198.51.100.7') as never, 5)).toBe('198.51.100.7');
    expect(clientAddress(source('10.0.0.1') as never, 1)).toBe('10.0.0.1');
  });
});
