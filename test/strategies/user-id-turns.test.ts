/**
 * `UserIdTurns` (src/strategies/user-id-turns.ts): shared rounds run together up to
 * `SHARED_AT_ONCE`, a round alone runs with no other round of the process, turns are granted in
 * request order (a waiting round alone holds back the shared rounds requested after it), and a
 * round that fails ends its turn. Each round here waits on a gate the test opens, so the order is
 * the turns' own, with no timing.
 */
import { UserIdTurns } from '../../src/strategies/user-id-turns';

/** A promise the test settles when it chooses. */
function gate(): { opened: Promise<void>; open: () => void; fail: (error: Error) => void } {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const opened = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { opened, open, fail };
}

/** Lets every settled promise's reactions run (a bounded number of microtask turns). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
}

/** A round that logs its start and end, and ends when its gate opens. */
function loggedRound(log: string[], name: string, until: Promise<void>): () => Promise<string> {
  return async () => {
    log.push(`start ${name}`);
    try {
      await until;
    } finally {
      log.push(`end ${name}`);
    }
    return name;
  };
}

describe('UserIdTurns', () => {
  it('runs shared rounds together, up to SHARED_AT_ONCE', async () => {
    const turns = new UserIdTurns();
    const log: string[] = [];
    const gates = Array.from({ length: UserIdTurns.SHARED_AT_ONCE + 1 }, () => gate());
    const done = gates.map((g, i) => turns.shared(loggedRound(log, `s${i}`, g.opened)));
    await settle();
    const last = `s${UserIdTurns.SHARED_AT_ONCE}`;
    expect(log).toHaveLength(UserIdTurns.SHARED_AT_ONCE);
    expect(log).not.toContain(`start ${last}`);
    gates[5].open();
    await settle();
    expect(log.slice(-2)).toEqual(['end s5', `start ${last}`]);
    for (const g of gates) g.open();
    await expect(Promise.all(done)).resolves.toEqual(gates.map((_, i) => `s${i}`));
  });

  it('runs a round alone after the shared rounds before it, and before those after it', async () => {
    const turns = new UserIdTurns();
    const log: string[] = [];
    const [a, b, alone, c] = [gate(), gate(), gate(), gate()];
    const done = [
      turns.shared(loggedRound(log, 'a', a.opened)),
      turns.shared(loggedRound(log, 'b', b.opened)),
      turns.alone(loggedRound(log, 'alone', alone.opened)),
      turns.shared(loggedRound(log, 'c', c.opened)),
    ];
    c.open();
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    a.open();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'end a']);
    b.open();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'end a', 'end b', 'start alone']);
    alone.open();
    await expect(Promise.all(done)).resolves.toEqual(['a', 'b', 'alone', 'c']);
    expect(log.slice(-3)).toEqual(['end alone', 'start c', 'end c']);
  });

  it('ends the turn of a round that fails, and hands on its error', async () => {
    const turns = new UserIdTurns();
    const log: string[] = [];
    const [failing, after] = [gate(), gate()];
    const failed = turns.alone(loggedRound(log, 'failing', failing.opened));
    const next = turns.shared(loggedRound(log, 'after', after.opened));
    after.open();
    await settle();
    expect(log).toEqual(['start failing']);
    failing.fail(new Error('database gone'));
    await expect(failed).rejects.toThrow('database gone');
    await expect(next).resolves.toBe('after');
    expect(log).toEqual(['start failing', 'end failing', 'start after', 'end after']);
  });

  it('ends the turn of a round that throws before its first wait', async () => {
    const turns = new UserIdTurns();
    const throwing = turns.alone(() => {
      throw new Error('deadline passed');
    });
    await expect(throwing).rejects.toThrow('deadline passed');
    await expect(turns.alone(async () => 'next')).resolves.toBe('next');
  });
});
