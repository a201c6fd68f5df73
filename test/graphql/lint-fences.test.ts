/**
 * The lint fences (eslint.config.mjs) really fence: ESLint, run as `npm run lint` runs it, refuses
 * a driver import in src/graphql, an undescribed schema field, an import cycle and an import
 * running back up the layers in src and bench, a relative import naming an extension anywhere,
 * an import out of the stand-in package or past its entry, and passes the schema as committed. Checked through
 * the CLI so the real flat config is loaded.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const ESLINT = path.join(ROOT, 'node_modules', '.bin', 'eslint');

/**
 * Lints `text` as if it were the file at `asFile`; resolves with the exit code and the rule ids and
 * messages reported.
 */
function lint(text: string, asFile: string): Promise<{ code: number; report: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      ESLINT,
      ['--stdin', '--stdin-filename', asFile, '--format', 'json'],
      { cwd: ROOT, timeout: 60_000 },
      (error, stdout) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        if (code !== 0 && code !== 1) {
          reject(error);
          return;
        }
        const [file] = JSON.parse(stdout) as Array<{
          messages: Array<{ ruleId: string | null; message: string }>;
        }>;
        const report = file.messages.map((m) => `${m.ruleId}: ${m.message}`).join('\n');
        resolve({ code, report });
      },
    );
    child.stdin?.end(text);
  });
}

test('src/graphql may not import the driver or bson', async () => {
  for (const module of ['mongodb', 'bson']) {
    const result = await lint(
      `import { Long } from '${module}';\nexport const one = Long;\n`,
      'src/graphql/leak.ts',
    );
    expect(result.code).toBe(1);
    expect(result.report).toMatch(new RegExp(`'${module}' import is restricted`));
  }
  const elsewhere = await lint(
    `import { Long } from 'bson';\nexport const one = Long;\n`,
    'src/users/fine.ts',
  );
  expect(elsewhere.code).toBe(0);
}, 120_000);

test('the schema passes the graphql-eslint rules, and an undescribed argument does not', async () => {
  const schema = readFileSync(path.join(ROOT, 'schema.graphql'), 'utf8');
  expect(await lint(schema, 'schema.graphql')).toEqual({ code: 0, report: '' });
  const undescribed = schema.replace(
    /"""\n {4}A user id: the decimal string of its numeric `_id`, like `"42"`.\n {4}"""\n/,
    '',
  );
  expect(undescribed).not.toBe(schema);
  const result = await lint(undescribed, 'schema.graphql');
  expect(result.code).toBe(1);
  expect(result.report).toMatch(/require-description/);
}, 120_000);

test('the import graph of src and bench refuses a cycle and an import running back up the layers', async () => {
  const upward = await lint(
    `import { Users } from '../users/index';\nexport const users = Users;\n`,
    'src/stats/leak.ts',
  );
  expect(upward.code).toBe(1);
  expect(upward.report).toMatch(/import-x\/no-restricted-paths: .*src\/stats is below it/);

  // counter/index.ts imports user-id-counter.ts; importing it back closes a circle.
  const circle = await lint(
    `import { counter } from './counter/index';\nexport const again = counter;\n`,
    'src/strategies/user-id-counter.ts',
  );
  expect(circle.code).toBe(1);
  expect(circle.report).toMatch(/import-x\/no-cycle: Dependency cycle/);

  const downward = await lint(
    `import { STRATEGIES } from '../strategies/index';\nexport const all = STRATEGIES;\n`,
    'src/users/fine.ts',
  );
  expect(downward).toEqual({ code: 0, report: '' });
}, 180_000);

test('relative imports carry no extension, in sources and tests alike', async () => {
  for (const asFile of ['src/users/styled.ts', 'test/users/styled.test.ts']) {
    const from = asFile.startsWith('src') ? '../strategies/index' : '../../src/strategies/index';
    const withExtension = await lint(
      `import { STRATEGIES } from '${from}.js';\nexport const all = STRATEGIES;\n`,
      asFile,
    );
    expect(withExtension.code).toBe(1);
    expect(withExtension.report).toMatch(
      /import-x\/extensions: Unexpected use of file extension "js"/,
    );
    const without = await lint(
      `import { STRATEGIES } from '${from}';\nexport const all = STRATEGIES;\n`,
      asFile,
    );
    expect(without).toEqual({ code: 0, report: '' });
  }
}, 180_000);

test('the stand-in package imports nothing of the service, and the service only its entry', async () => {
  const outOfPackage = await lint(
    `import { uniqueDbName } from '../../../test/support/service';\nexport const name = uniqueDbName;\n`,
    'packages/mongodb-standin/src/leak.ts',
  );
  expect(outOfPackage.code).toBe(1);
  expect(outOfPackage.report).toMatch(
    /import-x\/no-restricted-paths: .*imports nothing from outside/,
  );

  for (const asFile of ['src/database/leak.ts', 'test/users/leak.test.ts']) {
    const deep = await lint(
      `import { StandinServer } from '../../packages/mongodb-standin/src/server';\nexport const server = StandinServer;\n`,
      asFile,
    );
    expect(deep.code).toBe(1);
    expect(deep.report).toMatch(/import-x\/no-restricted-paths: .*only through its entry/);
    const entry = await lint(
      `import { startStandin } from 'mongodb-standin';\nexport const start = startStandin;\n`,
      asFile,
    );
    expect(entry).toEqual({ code: 0, report: '' });
  }

  const inside = await lint(
    `import { startStandin } from '../src/index';\nexport const start = startStandin;\n`,
    'packages/mongodb-standin/test/fine.test.ts',
  );
  expect(inside).toEqual({ code: 0, report: '' });
}, 240_000);
