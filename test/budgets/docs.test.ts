/**
 * docs/operations.md "Caller budgets" against src/limits.ts `BUDGETS`: one row per budget, each
 * figure as the service runs it, so the table an operator reads cannot drift from the defaults.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BUDGETS, type BudgetWindow } from '../../src/limits';

const operations = readFileSync(path.join(__dirname, '../../docs/operations.md'), 'utf8');

/** The rows of the table under "## Caller budgets", by budget name. */
function documentedBudgets(): Map<string, string[]> {
  const section = operations.split('## Caller budgets')[1]?.split('\n## ')[0] ?? '';
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  return new Map(rows.map((cells) => [cells[0].replaceAll('`', ''), cells]));
}

const shown = (window: BudgetWindow) =>
  window === null ? 'unlimited' : `${window.points} per ${window.seconds} s`;

test('every budget has its row, with the figures of src/limits.ts', () => {
  const rows = documentedBudgets();
  expect([...rows.keys()].sort()).toEqual(Object.keys(BUDGETS).sort());
  for (const [budget, roles] of Object.entries(BUDGETS)) {
    const cells = rows.get(budget)!;
    expect(cells.slice(2)).toEqual([
      shown(roles.anonymous),
      shown(roles.client),
      shown(roles.admin),
    ]);
  }
});
