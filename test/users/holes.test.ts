/**
 * The README's hole table ("Holes: which ids are never stored, and when") against what the
 * strategies do: every cause of the table is run with every strategy on a fresh database, through
 * the real components and driver (one `Users` per service process), then the process that goes on
 * creates one more user, and the holes below the largest stored id are counted. A cell that says
 * `none` must leave none, one that says `yes` at least one; a BLOCK cell that names a reason in
 * backticks must be what the processes counted in `sequential_ids_block_ids_dropped_total` under
 * that reason, hole for hole, and one that does not, nothing counted. The table must name every
 * strategy and every cause run here, and nothing else.
 *
 * On a private stand-in: the insert fault is an unscoped `failCommand` fail point.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { MongoClient, type CommandSucceededEvent, type Db } from 'mongodb';
import { startStandin, type RunningStandin } from 'mongodb-standin';
import { Sequences } from '../../src/sequences';
import { METRIC_PREFIX, StrategyStats } from '../../src/stats';
import { ID_STRATEGIES, type IdStrategy } from '../../src/strategies';
import { Users } from '../../src/users';
import { sequencesOptions, usersSettings } from '../support/domain-options';
import { holesIn } from '../support/stored-users';

let server: RunningStandin;
let client: MongoClient;
beforeAll(async () => {
  server = await startStandin({ log: () => undefined });
  client = await MongoClient.connect(server.uri, {
    serverSelectionTimeoutMS: 5_000,
    monitorCommands: true,
    runtimeAdapters: { os },
  });
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

/** One service process on the case's database: its own components, as `createComponents` builds. */
interface Process {
  users: Users;
  stats: StrategyStats<IdStrategy>;
}

interface Case {
  db: Db;
  strategy: IdStrategy;
  processes: Process[];
  /** A new service process on the case's database. */
  start(): Promise<Process>;
}

/** What a cause does; answers the process that goes on creating. */
type Cause = (c: Case) => Promise<Process>;

const plain = (name: string) => ({ name });

/** The first command that takes ids for `strategy`: a counter `$inc`, or the read of max + 1. */
const takesIds = (event: CommandSucceededEvent) =>
  ['findAndModify', 'find', 'aggregate'].includes(event.commandName);

const CAUSES: Record<string, Cause> = {
  'a `createUser` refused for its email or key': async ({ strategy, start }) => {
    const a = await start();
    await a.users.createUser({ name: 'Ann', email: 'ann@example.com' }, strategy);
    await expect(
      a.users.createUser({ name: 'Ann again', email: 'ann@example.com' }, strategy),
    ).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
    return a;
  },
  'an item refused for its email or key inside a `createUsers` batch': async ({
    strategy,
    start,
  }) => {
    const a = await start();
    await a.users.createUser({ name: 'Ann', email: 'ann@example.com' }, strategy);
    const results = await a.users.createUsers(
      [plain('a'), { name: 'b', email: 'ann@example.com' }, plain('c')],
      strategy,
    );
    expect(results[1]).toMatchObject({ error: { code: 'EMAIL_TAKEN' } });
    return a;
  },
  'an `_id` found taken (the counter behind stored ids)': async ({ strategy, start }) => {
    const a = await start();
    await a.users.createUser(plain('optimistic'), 'OPTIMISTIC_LOOP');
    await a.users.createUser(plain('after drift'), strategy);
    return a;
  },
  'a deadline that fires after the ids were taken, before the insert': async ({
    db,
    strategy,
    start,
  }) => {
    const a = await start();
    const deadline = new AbortController();
    const fire = (event: CommandSucceededEvent) => {
      if (event.databaseName === db.databaseName && takesIds(event)) {
        deadline.abort(new Error('deadline'));
      }
    };
    client.on('commandSucceeded', fire);
    try {
      await expect(
        a.users.createUser(plain('late'), strategy, { signal: deadline.signal }),
      ).rejects.toThrow('deadline');
    } finally {
      client.off('commandSucceeded', fire);
    }
    expect(await db.collection('users').countDocuments({ name: 'late' })).toBe(0);
    return a;
  },
  'an insert the database fails (a fault, a timeout)': async ({ strategy, start }) => {
    const a = await start();
    await a.users.createUser(plain('before'), strategy);
    // Twice: the driver may retry a write once by itself. TRANSACTION runs its transaction again.
    await client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 2 },
      data: { failCommands: ['insert'], errorCode: 10107 },
    });
    try {
      await a.users.createUser(plain('failed'), strategy).catch(() => undefined);
    } finally {
      await client.db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' });
    }
    return a;
  },
  'a process that stops without a clean shutdown (a crash, `kill -9`) while another goes on':
    async ({ strategy, start }) => {
      const a = await start();
      await a.users.createUser(plain('a'), strategy);
      // `a` dies here: nothing of it runs again, its held ids are given back to nobody.
      const b = await start();
      await b.users.createUser(plain('b'), strategy);
      return b;
    },
  'a clean shutdown after another process allocated': async ({ strategy, start }) => {
    const a = await start();
    await a.users.createUser(plain('a'), strategy);
    const b = await start();
    await b.users.createUser(plain('b'), strategy);
    await a.users.releaseHeldIds();
    return b;
  },
  'a clean shutdown, no other process having allocated since': async ({ strategy, start }) => {
    const a = await start();
    await a.users.createUser(plain('a'), strategy);
    await a.users.releaseHeldIds();
    return start();
  },
};

/** The README's hole table: cause -> strategy -> cell. */
function holeTable(): Map<string, Map<string, string>> {
  const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
  const section = readme.split('**Holes: which ids are never stored, and when.**')[1] ?? '';
  const lines = section
    .split('\n\n')
    .find((block) => block.startsWith('|'))
    ?.split('\n')
    .filter((line) => line.startsWith('|'));
  if (lines === undefined) throw new Error('the README has no hole table');
  const cells = (line: string) =>
    line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
  const [header, , ...rows] = lines.map(cells);
  const strategies = header.slice(1).map((name) => name.replaceAll('`', ''));
  return new Map(
    rows.map((row) => [row[0], new Map(strategies.map((strategy, i) => [strategy, row[i + 1]]))]),
  );
}

const DROPPED = `${METRIC_PREFIX}block_ids_dropped_total`;

/** What the processes counted as dropped BLOCK ids, by reason. */
async function droppedByReason(processes: Process[]): Promise<Map<string, number>> {
  const counted = new Map<string, number>();
  for (const { stats } of processes) {
    for (const match of (await stats.metrics()).matchAll(
      new RegExp(`^${DROPPED}\\{reason="(\\w+)"\\} (\\d+)$`, 'gm'),
    )) {
      counted.set(match[1], (counted.get(match[1]) ?? 0) + Number(match[2]));
    }
  }
  return counted;
}

const table = holeTable();

test('the hole table names every strategy and every cause run here', () => {
  expect([...table.keys()].sort()).toEqual(Object.keys(CAUSES).sort());
  for (const row of table.values())
    expect([...row.keys()].sort()).toEqual([...ID_STRATEGIES].sort());
});

let dbCount = 0;

describe.each(Object.keys(CAUSES))('%s', (cause) => {
  test.each(ID_STRATEGIES)('%s leaves what the table says', async (strategy) => {
    const cell = table.get(cause)?.get(strategy) ?? '';
    expect(cell).toMatch(/^(none|yes)\b/);
    const db = client.db(`holes_${(dbCount += 1)}`);
    const processes: Process[] = [];
    const start = async () => {
      const sequences = new Sequences(db, sequencesOptions);
      const stats = new StrategyStats(ID_STRATEGIES);
      const users = new Users({ db, sequences, stats, ...usersSettings });
      await users.ensureIndexes();
      const started = { users, stats };
      processes.push(started);
      return started;
    };
    const goesOn = await CAUSES[cause]({ db, strategy, processes, start });
    await goesOn.users.createUser(plain('goes on'), strategy);

    const holes = await holesIn(db);
    expect({ strategy, holes: holes > 0 }).toEqual({ strategy, holes: cell.startsWith('yes') });
    const dropped = await droppedByReason(processes);
    const reason = /\(`(\w+)`\)/.exec(cell)?.[1];
    const counted = reason === undefined ? 0 : (dropped.get(reason) ?? 0);
    const all = [...dropped.values()].reduce((sum, n) => sum + n, 0);
    // What the metric counted is the holes the cell names, and nothing else was counted.
    expect({ counted, all }).toEqual({
      counted: reason === undefined ? 0 : holes,
      all: reason === undefined ? 0 : holes,
    });
  });
});
