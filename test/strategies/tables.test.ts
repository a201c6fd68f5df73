/**
 * A strategy is one folder under src/strategies and one entry in its `STRATEGIES`; the code
 * iterates that list. What the code cannot iterate are the tables written for people and clients:
 * the schema's `IdStrategy` enum, the README's strategy table (whose columns state properties) and
 * configuration table (a row per variable a strategy declares, with its default), the curl
 * examples of docs/api.md and the example page's picker. This test fails when one of them misses
 * a strategy or names one the list does not have (CONTRIBUTING.md, "Adding a strategy"), as the
 * fault table checks its own coverage.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, GraphQLEnumType } from 'graphql';
import {
  ID_STRATEGIES,
  STRATEGIES,
  STRATEGY_SETTINGS,
  type IdStrategy,
} from '../../src/strategies';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/**
 * A table of the README section `heading`: one map of header -> cell per row, keyed by the name in
 * backticks that opens the row (a row opening otherwise, or with `skip`, is left out).
 */
function readmeTable(heading: string, skip?: string): Map<string, Record<string, string>> {
  const section = read('README.md').split(`\n## ${heading}\n`)[1]?.split('\n## ')[0] ?? '';
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  const cells = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
  const [header, , ...rows] = lines.map(cells);
  const table = new Map<string, Record<string, string>>();
  for (const row of rows) {
    const name = /^`([A-Z_]+)`/.exec(row[0])?.[1];
    if (name === undefined || (skip !== undefined && row[0].startsWith(skip))) continue;
    table.set(name, Object.fromEntries(header.map((column, i) => [column, row[i]])));
  }
  return table;
}

const sorted = (names: Iterable<string>) => [...names].sort();

test('the schema enum IdStrategy has exactly the listed strategies', () => {
  const enumType = buildSchema(read('schema.graphql')).getType('IdStrategy');
  expect(enumType).toBeInstanceOf(GraphQLEnumType);
  const values = (enumType as GraphQLEnumType).getValues().map((value) => value.name);
  expect(sorted(values)).toEqual(sorted(ID_STRATEGIES));
});

test('the README strategy table has a row per strategy, and its columns say what the properties say', () => {
  const table = readmeTable('Choosing a strategy', '`createUsers`');
  expect(sorted(table.keys())).toEqual(sorted(ID_STRATEGIES));
  const yes = (cell: string) => /^(\*\*)?yes/.test(cell);
  for (const strategy of ID_STRATEGIES) {
    const row = table.get(strategy) as Record<string, string>;
    const { properties } = STRATEGIES[strategy];
    expect({ strategy, inTimeOrder: yes(row['ids in time order']) }).toEqual({
      strategy,
      inTimeOrder: properties.idsInTimeOrder,
    });
    expect({ strategy, reissues: yes(row['reissues the id of a deleted newest user']) }).toEqual({
      strategy,
      reissues: properties.reissuesDeletedNewest,
    });
  }
});

test('docs/api.md shows createUser with every strategy, and the example page offers each', () => {
  const examples = read('docs/api.md');
  const page = read('e2e/page/index.html');
  const offered = [...page.matchAll(/<option value="([A-Z_]+)">/g)].map((match) => match[1]);
  expect(sorted(offered)).toEqual(sorted(ID_STRATEGIES));
  // In the query (`strategy: BLOCK`) or in the variables (`"strategy": "COUNTER"`).
  const missing = ID_STRATEGIES.filter(
    (strategy: IdStrategy) =>
      !examples.includes(`createUser(input: $input, strategy: ${strategy})`) &&
      !examples.includes(`"strategy": "${strategy}"`),
  );
  expect(missing).toEqual([]);
});

test("the README configuration table has a row for every strategy's variable, with its default", () => {
  const table = readmeTable('Configuration');
  const defaults = STRATEGY_SETTINGS.parse({});
  for (const strategy of ID_STRATEGIES) {
    for (const [variable, value] of Object.entries(defaults[strategy])) {
      expect({ variable, default: table.get(variable)?.default }).toEqual({
        variable,
        default: `\`${String(value)}\``,
      });
    }
  }
});
