/**
 * Confirming the unique indexes after inserts (src/users/indexes.ts, shared-check.ts): concurrent
 * creations share one `listIndexes`, counted once in the stats, and a check already in flight when
 * a caller asks never confirms it. Real concurrency through the real driver, commands counted from
 * its command monitoring.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from 'mongodb';
import { COUNTER_FED_STRATEGIES, type IdStrategy } from '../../src/strategies';
import { UserIndexes } from '../../src/users/indexes';
import { UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

const CONCURRENT = 50;

function emails(count: number, prefix: string) {
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix} ${i}`,
    email: `${prefix}${i}@example.com`,
  }));
}

// Only the counter-fed strategies: OPTIMISTIC_LOOP's concurrent creations contend for one id and end
// one by one (backoff between attempts), so their confirmations seldom overlap and have little to
// share.
describe.each(COUNTER_FED_STRATEGIES)('%s', (strategy: IdStrategy) => {
  test(`${CONCURRENT} concurrent users with an email share listIndexes, and the stats count each once`, async () => {
    const { users, stats, db, commandsDuring } = await bed.fresh();
    const inputs = emails(CONCURRENT, 'shared');
    let created: Array<{ user: { id: string; email: string | null } }> = [];
    const commands = await commandsDuring(async () => {
      created = await Promise.all(inputs.map((input) => users.createUser(input, strategy)));
    });
    const listIndexes = commands.filter((name) => name === 'listIndexes').length;
    expect(listIndexes).toBeGreaterThan(0);
    expect(listIndexes).toBeLessThan(CONCURRENT);
    expect(new Set(created.map((c) => c.user.id)).size).toBe(CONCURRENT);
    expect(created.map((c) => c.user.email).sort()).toEqual(inputs.map((i) => i.email).sort());
    expect(await db.collection('users').countDocuments()).toBe(CONCURRENT);
    const snapshot = stats.snapshot().find((s) => s.strategy === strategy);
    expect(snapshot?.usersCreated).toBe(CONCURRENT);
    // A shared command is one command: the stats count exactly what the driver sent.
    // TRANSACTION's commits (one per transaction, each with one `$inc`) go to the admin database,
    // which `commandsDuring` does not watch.
    const commits =
      strategy === 'TRANSACTION' ? commands.filter((name) => name === 'findAndModify').length : 0;
    expect((snapshot?.commandsPerUser ?? 0) * CONCURRENT).toBeCloseTo(commands.length + commits, 6);
  });
});

test('alone, each user with an email has its own check, sent right after its insert', async () => {
  const { users, commandsDuring } = await bed.fresh();
  await users.createUser({ name: 'warm-up' }, 'COUNTER');
  const commands = await commandsDuring(async () => {
    for (const input of emails(5, 'alone')) await users.createUser(input, 'COUNTER');
  });
  expect(commands).toEqual(
    Array.from({ length: 5 }, () => ['findAndModify', 'insert', 'listIndexes']).flat(),
  );
});

/** One `listIndexes` answer held in the process after the server gave it, until `release`. */
interface HeldAnswer {
  /** Settles when the server has answered (the check was evaluated). */
  answered: Promise<void>;
  release(): void;
}

/** `method` of `target` replaced by `replacement`; everything else as it is. */
function replacing<T extends object>(target: T, method: string, replacement: unknown): T {
  return new Proxy(target, {
    get: (object, property) => {
      if (property === method) return replacement;
      const value: unknown = Reflect.get(object, property);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

/**
 * `db` for a `Users` whose next `listIndexes` answer can be held (`holdNext`), as a slow network on
 * the way back would: the server has evaluated the check, the caller does not know it yet.
 */
function withIndexAnswersHeld(db: Db): { db: Db; holdNext(): HeldAnswer } {
  let hold: { answered: () => void; released: Promise<void> } | null = null;
  const holding = replacing(db, 'collection', (...args: Parameters<Db['collection']>) => {
    const collection = db.collection(...args);
    return replacing(collection, 'listIndexes', (...options: unknown[]) => {
      const cursor = collection.listIndexes(...(options as []));
      return replacing(cursor, 'toArray', async () => {
        const answer = await cursor.toArray();
        const mine = hold;
        hold = null;
        if (mine !== null) {
          mine.answered();
          await mine.released;
        }
        return answer;
      });
    });
  });
  return {
    db: holding,
    holdNext() {
      let answered: () => void = () => undefined;
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const seen = new Promise<void>((resolve) => {
        answered = resolve;
      });
      hold = { answered, released };
      return { answered: seen, release };
    },
  };
}

/** Resolves once `spy` has been called `count` times in all. */
async function calledTimes(spy: jest.SpyInstance, count: number): Promise<void> {
  while (spy.mock.calls.length < count) await sleep(5);
}

test('a check in flight when a caller asks does not confirm it: she waits for the next one', async () => {
  const { db, otherProcess, commandsSent } = await bed.fresh();
  const indexAnswers = withIndexAnswersHeld(db);
  const users = await otherProcess({ db: indexAnswers.db });
  const present = jest.spyOn(UserIndexes.prototype, 'present');
  try {
    await users.createUser({ name: 'Ann', email: 'ann@example.com' }, 'COUNTER');
    let whileHeld: unknown;
    const events = await commandsSent(async () => {
      // Bob's check is evaluated with the indexes in place, and its answer held.
      const held = indexAnswers.holdNext();
      const bob = users.createUser({ name: 'Bob', email: 'bob@example.com' }, 'COUNTER');
      await held.answered;
      // The indexes go, and a second Ann is inserted without them: only a check sent after her
      // insert can see that. She asks while Bob's check is still in flight.
      await db.collection('users').dropIndexes();
      const annAgain = users
        .createUser({ name: 'Ann 2', email: 'ann@example.com' }, 'COUNTER')
        .then(
          () => 'acknowledged',
          (err: unknown) => err,
        );
      await calledTimes(present, 3);
      // Bounds the wait for a wrong early answer (from Bob's check, or from a check of her own).
      whileHeld = await Promise.race([annAgain, sleep(500).then(() => 'waiting')]);
      await db.command({ ping: 1 }); // marks the release in the command log
      held.release();
      await bob;
      expect(await annAgain).toMatchObject({ code: 'EMAIL_TAKEN', field: 'email' });
    });
    expect(whileHeld).toBe('waiting');
    const sent = events.map((e) => e.commandName);
    const heldUntil = sent.indexOf('ping');
    // Only Bob's check was in flight until its answer came; hers was sent after it.
    expect(sent.slice(0, heldUntil).filter((name) => name === 'listIndexes')).toHaveLength(1);
    expect(sent.slice(heldUntil).filter((name) => name === 'listIndexes').length).toBeGreaterThan(
      0,
    );
    expect(await db.collection('users').countDocuments({ email: 'ann@example.com' })).toBe(1);
    expect(await db.collection('users').countDocuments({ email: 'bob@example.com' })).toBe(1);
  } finally {
    present.mockRestore();
  }
});
