/**
 * The shipped client-preset configuration (client/codegen.ts) against GraphQL Code Generator's
 * defaults, on a document that reads the API's custom scalars: with the defaults `Long` and
 * `DateTime` come out as `unknown` and fragments masked (typed use needs settings first), with the
 * shipped one as the numbers and strings the JSON holds, and fragments unmasked.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'codegen-'));
  writeFileSync(
    path.join(dir, 'Next.graphql'),
    'query Next { nextSequence(name: "userid") user(id: "1") { ...Created } }\nfragment Created on User { createdAt }\n',
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs graphql-codegen (the CLI, as a project would) with `output` ('defaults' or 'shipped'). */
async function generated(output: 'defaults' | 'shipped'): Promise<string> {
  const out = path.join(dir, output);
  const documents = JSON.stringify([path.join(dir, '*.graphql')]);
  writeFileSync(
    path.join(dir, `${output}.ts`),
    `import { clientPreset } from ${JSON.stringify(path.join(ROOT, 'client', 'codegen'))};
export default {
  schema: ${JSON.stringify(path.join(ROOT, 'schema.graphql'))},
  generates: { ${JSON.stringify(out + '/')}: ${
    output === 'shipped'
      ? `clientPreset(${documents})`
      : `{ preset: 'client', documents: ${documents} }`
  } },
};
`,
  );
  await new Promise<void>((resolve, reject) =>
    execFile(
      path.join(ROOT, 'node_modules', '.bin', 'graphql-codegen'),
      ['--config', path.join(dir, `${output}.ts`)],
      { cwd: ROOT, timeout: 120_000 },
      (error, _stdout, stderr) => (error === null ? resolve() : reject(new Error(stderr))),
    ),
  );
  return readFileSync(path.join(out, 'graphql.ts'), 'utf8');
}

test('the defaults type Long as unknown and mask fragments; the shipped preset types what JSON holds', async () => {
  const defaults = await generated('defaults');
  expect(defaults).toMatch(/export type NextQuery = \{ nextSequence: unknown/);
  expect(defaults).toMatch(/\$fragmentRefs/);
  const shipped = await generated('shipped');
  expect(shipped).toMatch(
    /export type NextQuery = \{ __typename: 'Query', nextSequence: number \| null, user: \{ __typename: 'User', createdAt: string \} \| null \}/,
  );
  expect(shipped).not.toMatch(/\$fragmentRefs/);
}, 120_000);
