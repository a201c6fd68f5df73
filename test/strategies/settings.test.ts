/**
 * Each strategy declares the environment variables it reads in its own folder
 * (src/strategies/<name>/), and the process reads them beside the service's own
 * (`loadEnvironment`, src/config.ts): one bad environment is one ConfigError naming every bad
 * variable, whichever side declared it, and each source receives its strategy's values.
 */
import { loadConfig } from '../../src/config';
import { VALUES_PER_ALLOCATION } from '../../src/limits';
import { ID_STRATEGIES, STRATEGIES } from '../../src/strategies';
import { readEnvironment, refusalOf } from '../support/environment';

test('each strategy gets the variables it declares, and only those', () => {
  const { settings } = readEnvironment({
    ID_BLOCK_SIZE: '25',
    ID_BLOCK_SIZE_MAX: '50',
    OPTIMISTIC_MAX_ATTEMPTS: '7',
    PORT: '8080',
  });
  expect(settings).toMatchObject({
    OPTIMISTIC_LOOP: { OPTIMISTIC_MAX_ATTEMPTS: 7 },
    BLOCK: { ID_BLOCK_SIZE: 25, ID_BLOCK_SIZE_MAX: 50 },
  });
  expect(Object.keys(settings)).toEqual(ID_STRATEGIES);
  for (const strategy of ID_STRATEGIES) {
    expect({ strategy, variables: Object.keys(settings[strategy]).sort() }).toEqual({
      strategy,
      variables: Object.keys(STRATEGIES[strategy].settings.shape).sort(),
    });
  }
});

test('no two strategies declare the same variable', () => {
  const declared = ID_STRATEGIES.flatMap((strategy) =>
    Object.keys(STRATEGIES[strategy].settings.shape),
  );
  expect(new Set(declared).size).toBe(declared.length);
});

test("a strategy's bad variable and the service's are refused together, each line naming its variable", () => {
  const [heading, ...lines] = refusalOf({
    PORT: 'eighty',
    ID_BLOCK_SIZE: '0',
    OPTIMISTIC_MAX_ATTEMPTS: '1001',
  }).split('\n');
  expect(heading).toBe('Invalid configuration:');
  expect(lines.sort()).toEqual([
    '  ID_BLOCK_SIZE: ID_BLOCK_SIZE must be at least 1',
    '  OPTIMISTIC_MAX_ATTEMPTS: OPTIMISTIC_MAX_ATTEMPTS must be at most 1000',
    '  PORT: PORT must be a whole number',
  ]);
});

test('a block is at most one allocation, and the largest block at least the smallest', () => {
  const tooLarge = String(VALUES_PER_ALLOCATION + 1);
  expect(refusalOf({ ID_BLOCK_SIZE: tooLarge })).toContain(
    `ID_BLOCK_SIZE: ID_BLOCK_SIZE must be at most ${VALUES_PER_ALLOCATION}`,
  );
  expect(refusalOf({ ID_BLOCK_SIZE_MAX: tooLarge })).toContain(
    `ID_BLOCK_SIZE_MAX: ID_BLOCK_SIZE_MAX must be at most ${VALUES_PER_ALLOCATION}`,
  );
  expect(refusalOf({ ID_BLOCK_SIZE: '500', ID_BLOCK_SIZE_MAX: '100' })).toContain(
    'ID_BLOCK_SIZE_MAX: ID_BLOCK_SIZE_MAX must be at least ID_BLOCK_SIZE',
  );
  expect(
    readEnvironment({ ID_BLOCK_SIZE: '100', ID_BLOCK_SIZE_MAX: '100' }).settings.BLOCK,
  ).toEqual({
    ID_BLOCK_SIZE: 100,
    ID_BLOCK_SIZE_MAX: 100,
  });
});

test("the service's own configuration neither reads nor refuses a strategy's variable", () => {
  const config = loadConfig({ ID_BLOCK_SIZE: '0', OPTIMISTIC_MAX_ATTEMPTS: 'many' });
  expect(Object.keys(config)).not.toContain('ID_BLOCK_SIZE');
  expect(Object.keys(config)).not.toContain('OPTIMISTIC_MAX_ATTEMPTS');
});
