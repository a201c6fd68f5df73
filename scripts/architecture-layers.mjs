// The service's layers, read from the one place they are written: the table under "## Layout" in
// docs/ARCHITECTURE.md. eslint.config.mjs builds its no-restricted-paths zones from them, and
// test/architecture/imports.test.ts checks the import graph of src/ against them, so the order
// has one home. A row is `| <layer> | <modules in backticks> | <what it is> |`; layer 0 is the
// lowest, and every number from 0 up appears once.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The layers, lowest first, each the list of its modules (`src/<folder>` or `src/<file>.ts`).
 * Throws, naming the document, when the table is missing, a layer number is missing or repeated,
 * or a row names no module.
 *
 * @param {string} [document] the architecture document's text (the committed one by default)
 * @returns {string[][]}
 */
export function readLayers(
  document = readFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8'),
) {
  const section = document.split(/^## Layout$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = section
    .split('\n')
    .map((line) => line.match(/^\|\s*(\d+)\s*\|([^|]*)\|/))
    .filter((row) => row !== null);
  const layers = [];
  for (const [, layer, modules] of rows) {
    layers[Number(layer)] = [...modules.matchAll(/`([^`]+)`/g)].map(([, module]) => module);
  }
  const complete = rows.length === layers.length && Array.from(layers).every((m) => m?.length);
  if (layers.length === 0 || !complete) {
    throw new Error(
      'docs/ARCHITECTURE.md, "## Layout": the layer table must number its rows 0, 1, 2, ... ' +
        'once each, every row naming its modules in backticks.',
    );
  }
  return layers;
}
