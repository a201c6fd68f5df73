/**
 * The input bounds met on a raw JSON body (src/http/raw-input-bounds.ts) refuse only what the walk
 * of the parsed variables (`inputProblem`) refuses, with the same words: checked on the issue's
 * hostile shapes, on each bound just past and just within it, on batches and on many generated
 * bodies around the bounds; strings are measured in UTF-16 units as JavaScript measures them.
 */
import { inputProblem } from '../../src/http/input-bounds';
import { rawInputProblem } from '../../src/http/raw-input-bounds';
import { INPUT } from '../../src/limits';
import { HOSTILE_BODIES } from '../support/hostile-bodies';

const QUERY = 'mutation($input: CreateUserInput!) { createUser(input: $input) { user { id } } }';

const raw = (text: string) => rawInputProblem(Buffer.from(text, 'utf8'));

/** The problem of the parsed body: of its operation, or the first of a batch's. */
function parsedProblem(text: string) {
  const body: unknown = JSON.parse(text);
  const operations = Array.isArray(body) ? body : [body];
  for (const operation of operations) {
    const problem = inputProblem((operation as { variables?: unknown } | null)?.variables);
    if (problem !== null) return problem;
  }
  return null;
}

const bodyWith = (variables: unknown) => JSON.stringify({ query: QUERY, variables });

test.each(HOSTILE_BODIES)('$shape: refused on the raw bytes as on the parsed body', (hostile) => {
  const text = hostile.body();
  const problem = raw(text);
  expect(problem).not.toBeNull();
  expect(problem?.field).toMatch(hostile.field);
  expect(problem).toEqual(parsedProblem(text));
});

describe('each bound, just past it and just within it', () => {
  const item = (i: number) => ({ name: `n${i}` });
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 1]));
  const nested = (depth: number): unknown => (depth === 0 ? 1 : { x: nested(depth - 1) });
  /** Six variables, five lists of 1,000 and one of `last`: 6 + 5,000 + `last` values. */
  const sixLists = (last: number) =>
    Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`v${i}`, Array(i === 5 ? last : 1000).fill(1)]),
    );
  const cases: Array<[string, unknown, unknown]> = [
    [
      'items per list',
      { inputs: Array.from({ length: INPUT.itemsPerList + 1 }, (_, i) => item(i)) },
      { inputs: Array.from({ length: INPUT.itemsPerList }, (_, i) => item(i)) },
    ],
    [
      'keys per object',
      { input: keys(INPUT.keysPerObject + 1) },
      { input: keys(INPUT.keysPerObject) },
    ],
    ['depth', { input: nested(INPUT.depth + 1) }, { input: nested(INPUT.depth) }],
    [
      'string length',
      { input: { name: 'n'.repeat(INPUT.stringLength + 1) } },
      { input: { name: 'n'.repeat(INPUT.stringLength) } },
    ],
    [
      'key length',
      { input: { ['k'.repeat(INPUT.stringLength + 1)]: 1 } },
      { input: { ['k'.repeat(INPUT.stringLength)]: 1 } },
    ],
    ['values in all', sixLists(1000), sixLists(994)],
  ];

  test.each(cases)('%s', (_bound, past, within) => {
    const pastBody = bodyWith(past);
    expect(raw(pastBody)).not.toBeNull();
    expect(raw(pastBody)).toEqual(parsedProblem(pastBody));
    expect(raw(bodyWith(within))).toBeNull();
    expect(parsedProblem(bodyWith(within))).toBeNull();
  });
});

describe('strings count UTF-16 units, as JavaScript does', () => {
  test.each([
    ['4-byte characters (surrogate pairs)', '😀'],
    ['2- and 3-byte characters', 'é€'],
    ['escapes', '\n"\\'],
  ])('%s', (_label, unit) => {
    const per = unit.length;
    const within = unit.repeat(Math.floor(INPUT.stringLength / per));
    const past = unit.repeat(Math.floor(INPUT.stringLength / per) + 1);
    expect(raw(bodyWith({ input: { name: within } }))).toBeNull();
    const problem = raw(bodyWith({ input: { name: past } }));
    expect(problem).toEqual(parsedProblem(bodyWith({ input: { name: past } })));
    expect(problem?.field).toBe('input.name');
  });

  test('\\u escapes count one unit each', () => {
    const text = `{"variables":{"input":{"name":"${'\\u00e9'.repeat(INPUT.stringLength + 1)}"}}}`;
    expect(raw(text)).toEqual(parsedProblem(text));
    expect(raw(text)?.field).toBe('input.name');
  });
});

describe('keys are read as JSON.parse reads them', () => {
  test.each([
    ['escaped', '"\\u0069nput"', 'input'],
    ['non-ASCII', '"ïnput"', 'ïnput'],
    ['plain', '"input"', 'input'],
  ])('a %s key names the path as the parsed walk does', (_label, key, decodedKey) => {
    const text = `{"variables":{${key}:{"name":"${'n'.repeat(INPUT.stringLength + 1)}"}}}`;
    expect(raw(text)).toEqual(parsedProblem(text));
    expect(raw(text)?.field).toBe(`${decodedKey}.name`);
  });

  test('the variables key itself may be written with an escape', () => {
    const text = `{"v\\u0061riables":{"input":{"name":"${'n'.repeat(INPUT.stringLength + 1)}"}}}`;
    expect(raw(text)).toEqual(parsedProblem(text));
    expect(raw(text)?.field).toBe('input.name');
  });
});

describe('only the variables of each operation', () => {
  test('a long query, extensions and operationName are not variables', () => {
    const text = JSON.stringify({
      query: `# ${'c'.repeat(50_000)}\n${QUERY}`,
      operationName: 'o'.repeat(5_000),
      extensions: {
        wide: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, [[[[[1]]]]]])),
      },
      variables: { input: { name: 'Ann' } },
    });
    expect(raw(text)).toBeNull();
  });

  test('escapes in a query, an operation name and extensions end no string early', () => {
    // Quotes and backslashes escaped every way JSON allows, next to each other and at the ends.
    const tricky = 'a"b\\"c\\\\d\u0022e"\\';
    for (const variables of [
      { input: { name: 'Ann' } },
      { input: { name: 'n'.repeat(INPUT.stringLength + 1) } },
    ]) {
      const text = JSON.stringify({
        query: `# ${tricky}\n${QUERY}`,
        operationName: tricky,
        extensions: { [tricky]: [tricky, { [tricky]: tricky }] },
        variables,
      });
      expect(raw(text)).toEqual(parsedProblem(text));
    }
    const escapedUnicode = `{"query":"\\u0022${QUERY}\\u005c","variables":{"input":{"name":"${'n'.repeat(INPUT.stringLength + 1)}"}}}`;
    expect(raw(escapedUnicode)).toEqual(parsedProblem(escapedUnicode));
    expect(raw(escapedUnicode)?.field).toBe('input.name');
    // Ended at its escaped quote, the query would turn every quote after it inside out.
    const quote = JSON.stringify({
      query: '"',
      variables: { input: { name: 'n'.repeat(INPUT.stringLength + 1) } },
    });
    expect(raw(quote)).toEqual(parsedProblem(quote));
    expect(raw(quote)?.field).toBe('input.name');
  });

  test("a batch's operations are each checked", () => {
    const text = JSON.stringify([
      { query: QUERY, variables: { input: { name: 'Ann' } } },
      { query: QUERY, variables: { input: { name: 'n'.repeat(INPUT.stringLength + 1) } } },
    ]);
    expect(raw(text)).toEqual(parsedProblem(text));
    expect(raw(text)?.field).toBe('input.name');
  });

  test("values are counted per operation: a batch's operations may each hold the most", () => {
    const full = {
      query: QUERY,
      variables: { inputs: Array(1_000).fill({ name: 'n', email: 'e' }) },
    };
    const text = JSON.stringify([full, full, full]);
    expect(parsedProblem(text)).toBeNull();
    expect(raw(text)).toBeNull();
  });

  test('variables that are not an object are left to GraphQL', () => {
    expect(
      raw(JSON.stringify({ query: QUERY, variables: Array(5_000).fill([[[[[1]]]]]) })),
    ).toBeNull();
  });
});

test('what is not JSON is left to JSON.parse, and nothing throws', () => {
  for (const text of [
    '',
    '{',
    '{"variables":{"input":{"name":"x',
    ']]]',
    '"',
    '{"variables":[}',
    'nul',
  ]) {
    expect(() => raw(text)).not.toThrow();
    expect(raw(text)).toBeNull();
  }
});

test('generated bodies around the bounds: refused only when the parsed walk refuses', () => {
  // A small deterministic generator (no dependency): lists, objects and strings near each bound.
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  let budget = 0;
  const value = (depth: number): unknown => {
    budget -= 1;
    const pick = random();
    if (budget <= 0 || depth > INPUT.depth + 1 || pick < 0.3) {
      return 'é😀a'.repeat(Math.floor(random() * 1_500));
    }
    if (pick < 0.45) return Math.floor(random() * 100);
    if (pick < 0.7) {
      return Array.from({ length: Math.floor(random() * 20) }, () => value(depth + 1));
    }
    const keys = Math.floor(random() * (INPUT.keysPerObject + 3));
    return Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, value(depth + 1)]));
  };
  let refused = 0;
  for (let round = 0; round < 300; round += 1) {
    budget = 200; // values per body: bodies of up to a few hundred KB
    const text = bodyWith({ input: value(1), other: value(1) });
    const problem = raw(text);
    const parsed = parsedProblem(text);
    if (problem !== null) {
      refused += 1;
      expect(parsed).not.toBeNull();
    } else {
      expect(parsed).toBeNull();
    }
  }
  expect(refused).toBeGreaterThan(30);
  expect(refused).toBeLessThan(300);
});
