/**
 * The caller's deadline (`options.signal`) stops work: once it fired, no database write starts.
 * The signal is fired from the driver's own `commandStarted` event of the command named, so the
 * deadline passes exactly while that command is in flight (issue 11, finding 8).
 */
import type { CommandStartedEvent } from 'mongodb';
import { SequenceCatalog } from '../../src/sequences';
import { ID_STRATEGIES, STRATEGIES } from '../../src/strategies';
import { UsersTestBed, type UsersUnderTest } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

const WRITES = new Set(['insert', 'update', 'findAndModify', 'delete']);

/** Runs `work` with a signal that fires when the `nth` command named `at` starts; the commands sent. */
async function withDeadlineAt(
  under: UsersUnderTest,
  at: string,
  work: (signal: AbortSignal) => Promise<unknown>,
): Promise<{ outcome: PromiseSettledResult<unknown>; commands: string[] }> {
  const controller = new AbortController();
  const client = under.db.client;
  const listener = (event: CommandStartedEvent) => {
    if (event.databaseName === under.db.databaseName && event.commandName === at) {
      controller.abort(new Error('deadline passed'));
    }
  };
  client.on('commandStarted', listener);
  try {
    let outcome!: PromiseSettledResult<unknown>;
    const commands = await under.commandsDuring(async () => {
      [outcome] = await Promise.allSettled([work(controller.signal)]);
    });
    return { outcome, commands };
  } finally {
    client.off('commandStarted', listener);
  }
}

describe.each(ID_STRATEGIES)('%s', (strategy) => {
  test('an already-fired signal sends no write at all', async () => {
    const under = await bed.fresh();
    const signal = AbortSignal.abort(new Error('deadline passed'));
    const commands = await under.commandsDuring(() =>
      expect(under.users.createUser({ name: 'late' }, strategy, { signal })).rejects.toThrow(
        'deadline passed',
      ),
    );
    expect(commands.filter((name) => WRITES.has(name))).toEqual([]);
    expect(await under.db.collection('users').countDocuments()).toBe(0);
  });

  test('a deadline passing while the id is taken stops before the insert', async () => {
    const under = await bed.fresh();
    const takesId = STRATEGIES[strategy].properties.fedByCounter ? 'findAndModify' : 'find';
    const { outcome, commands } = await withDeadlineAt(under, takesId, (signal) =>
      under.users.createUsers([{ name: 'a' }, { name: 'b' }], strategy, { signal }),
    );
    expect(outcome.status).toBe('rejected');
    expect(commands).toContain(takesId);
    expect(commands).not.toContain('insert');
    expect(await under.db.collection('users').countDocuments()).toBe(0);
  });
});

test('a deadline passing during a refused insert leaves the give-back and the retry unsent', async () => {
  const under = await bed.fresh();
  await under.users.createUser({ name: 'Ann', email: 'ann@example.com' }, 'COUNTER');
  const { commands } = await withDeadlineAt(under, 'insert', (signal) =>
    under.users.createUser({ name: 'Other', email: 'ann@example.com' }, 'COUNTER', { signal }),
  );
  expect(commands.filter((name) => WRITES.has(name))).toEqual(['findAndModify', 'insert']);
});

test('catalog writes respect the signal: no create, allocation or set after it fired', async () => {
  const under = await bed.fresh();
  const catalog = new SequenceCatalog(under.sequences, [under.users.idSequence]);
  const admin = { role: 'admin' } as const;
  await catalog.create({ name: 'invoice' }, admin);
  const signal = AbortSignal.abort(new Error('deadline passed'));
  const commands = await under.commandsDuring(async () => {
    await expect(catalog.create({ name: 'order' }, admin, { signal })).rejects.toThrow('deadline');
    await expect(catalog.allocate({ name: 'invoice' }, 1, admin, { signal })).rejects.toThrow(
      'deadline',
    );
    await expect(catalog.setValue({ name: 'invoice' }, 9, admin, { signal })).rejects.toThrow(
      'deadline',
    );
  });
  expect(commands.filter((name) => WRITES.has(name))).toEqual([]);
  expect(await catalog.peekNext({ name: 'invoice' }, admin)).toBe(1);
});
