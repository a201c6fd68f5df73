/**
 * A plain name (printable ASCII, nothing else in the input) is checked without zod
 * (src/users/validation.ts, `plainNameInput`); it must get zod's answer exactly. zod's own answer
 * for the same name is had by adding `email: ''`, which zod turns into no email: every name below
 * is validated both ways and the answers (the normalized input, or the refusal) must be equal.
 */
import { validateCreateUserInput } from '../../src/users/validation';

/** The normalized input, or the refusal's message and field. */
function answer(input: Parameters<typeof validateCreateUserInput>[0]): unknown {
  try {
    return { accepted: validateCreateUserInput(input) };
  } catch (err) {
    const { message, field } = err as { message: string; field?: string };
    return { refused: { message, field } };
  }
}

/** The same name's answer through the shortcut and through zod. */
function bothWays(name: string): [unknown, unknown] {
  return [answer({ name }), answer({ name, email: '' })];
}

const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));

/** Deterministic pseudo-random printable ASCII names (a linear congruential generator). */
function randomNames(count: number): string[] {
  let seed = 20261202;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + (next() % 120) }, () => PRINTABLE[next() % PRINTABLE.length]).join(''),
  );
}

describe('a plain name is answered as zod answers it', () => {
  test.each(PRINTABLE.map((c) => [c]))('the name %j alone, and inside spaces', (c) => {
    for (const name of [c, ` ${c} `, `Ann${c}Bob`, c.repeat(100), c.repeat(101)]) {
      const [shortcut, zod] = bothWays(name);
      expect(shortcut).toEqual(zod);
    }
  });

  test('names at and past the length limit, with and without spaces around them', () => {
    const x = (n: number) => 'x'.repeat(n);
    for (const name of [x(99), x(100), x(101), ` ${x(99)} `, ` ${x(100)}`, `${x(100)}  `, '']) {
      const [shortcut, zod] = bothWays(name);
      expect(shortcut).toEqual(zod);
    }
    expect(answer({ name: ` ${x(100)}` })).toEqual({
      accepted: {
        name: x(100),
        email: undefined,
        invitedById: undefined,
        idempotencyKey: undefined,
      },
    });
    expect(answer({ name: x(101) })).toMatchObject({ refused: { field: 'name' } });
    expect(answer({ name: '   ' })).toMatchObject({
      refused: { message: 'Name must not be empty.', field: 'name' },
    });
  });

  test('500 random printable ASCII names', () => {
    for (const name of randomNames(500)) {
      const [shortcut, zod] = bothWays(name);
      expect(shortcut).toEqual(zod);
    }
  });

  test.each([
    ['a tab', 'Ann\tBob'],
    ['DEL', 'Ann\u007f'],
    ['a NUL', 'Ann\u0000'],
    ['an accent, not NFC', 'Ame\u0301lie'],
    ['a zero-width space', 'Ann\u200b'],
    ['a Hangul filler only', '\u3164'],
    ['an emoji', 'Ann 🎉'],
    ['a lone surrogate', 'Ann\ud800'],
  ])('a name with %s goes to zod and gets its answer', (_case, name) => {
    const [shortcut, zod] = bothWays(name);
    expect(shortcut).toEqual(zod);
  });

  test('any other field, or a name that is not text, goes to zod', () => {
    expect(answer({ name: 'Ann', idempotencyKey: ' k ' })).toMatchObject({
      accepted: { name: 'Ann', idempotencyKey: 'k' },
    });
    expect(answer({ name: 'Ann', invitedById: '7' })).toMatchObject({
      accepted: { name: 'Ann', invitedById: 7 },
    });
    expect(answer({ name: 'Ann', email: 'ANN@example.com' })).toMatchObject({
      accepted: { name: 'Ann', email: 'ann@example.com' },
    });
    expect(answer({ name: { $gt: '' } } as never)).toMatchObject({ refused: { field: 'name' } });
    expect(answer(null as never)).toMatchObject({ refused: { field: 'name' } });
  });
});
