/**
 * The import graph of src/ (test/architecture/import-graph.ts, type-only imports included) has no
 * circle, no import up the layer table of docs/ARCHITECTURE.md and no import past another folder's
 * facade (its index.ts), and eslint.config.mjs fences with that same table. Each rule is also shown refusing a file planted over the committed tree.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ROOT,
  circles,
  componentOf,
  deepImports,
  documentedLayers,
  importGraph,
  layerOf,
  listed,
  upwardImports,
} from './import-graph';

const graph = importGraph();
const layers = documentedLayers();

test('src/ has no circle, counting type-only imports', () => {
  expect(graph.edges.length).toBeGreaterThan(100);
  expect(circles(graph)).toEqual([]);
});

test('every module of src/ has a row in the layer table, and no import runs up it', () => {
  const unplaced = graph.files.filter((file) => layerOf(file, layers) === undefined);
  expect(unplaced).toEqual([]);
  expect(listed(upwardImports(graph, layers))).toBe('');
});

test("an import into another folder of src/ names that folder's index.ts", () => {
  expect(listed(deepImports(graph))).toBe('');
  const past = `import type { ChangeFeed } from '../database/change-feed';\nexport type F = ChangeFeed<1>;\n`;
  expect(listed(deepImports(importGraph({ 'src/users/past.ts': past })))).toBe(
    'src/users/past.ts:1 imports ../database/change-feed (src/database/change-feed.ts)',
  );
});

test('a planted type-only circle is found, whichever form its imports take', () => {
  const turns = 'src/strategies/user-id-turns.ts';
  const committed = readFileSync(path.join(ROOT, turns), 'utf8');
  for (const planted of [
    `import type { CreationTally } from './strategy';\nexport type Tally = CreationTally;\n`,
    `export type Tally = import('./strategy').CreationTally;\n`,
    `export type { CreationTally } from './strategy';\n`,
  ]) {
    expect(circles(importGraph({ [turns]: committed + planted }))).toEqual([
      ['src/strategies/strategy.ts', turns],
    ]);
  }
});

test('a planted upward import is found, and the table it is judged by is the document', () => {
  const leak = `import type { Users } from '../users/index';\nexport type Leak = Users;\n`;
  const upward = upwardImports(importGraph({ 'src/stats/leak.ts': leak }), layers);
  expect(listed(upward)).toBe('src/stats/leak.ts:1 imports ../users/index (src/users/index.ts)');

  // Swap two rows of the committed document: the imports sequences and stats make of database now
  // run up, and they alone.
  const document = readFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const swapped = document
    .replace(/^\| 4 (\s*)\|/m, '| X $1|')
    .replace(/^\| 3 (\s*)\|/m, '| 4 $1|')
    .replace(/^\| X (\s*)\|/m, '| 3 $1|');
  expect(swapped).not.toBe(document);
  const reordered = upwardImports(graph, documentedLayers(swapped));
  expect(reordered.length).toBeGreaterThan(0);
  expect(new Set(reordered.map((e) => `${componentOf(e.from)} -> ${componentOf(e.to)}`))).toEqual(
    new Set(['src/sequences -> src/database']),
  );

  expect(() => documentedLayers(document.replace(/^\| 2 /m, '| 7 '))).toThrow(
    /must number its rows 0, 1, 2/,
  );
});

test("eslint.config.mjs fences with the document's layers", () => {
  const script =
    "const { default: config } = await import('./eslint.config.mjs');" +
    "const rule = config.map((c) => c.rules?.['import-x/no-restricted-paths']).find(Boolean);" +
    'process.stdout.write(JSON.stringify(rule[1].zones));';
  const zones = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    }),
  ) as Array<{ target: string; from: string[] }>;
  const expected = layers.flatMap((modules, at) =>
    modules.map((module) => ({
      target: `./${module}`,
      from: [...layers.slice(at + 1).flat(), 'bench'].map((above) => `./${above}`),
    })),
  );
  // The layer zones; the stand-in package's fence is a zone of its own (test/graphql/lint-fences).
  const layerZones = zones.filter(
    ({ target }) => typeof target === 'string' && target.startsWith('./src'),
  );
  expect(layerZones.map(({ target, from }) => ({ target, from }))).toEqual(expected);
}, 60_000);
