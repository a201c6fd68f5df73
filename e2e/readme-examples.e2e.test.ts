/**
 * The docs promise frontend developers a curl equivalent of every operation (docs/api.md) and show
 * the error a page receives, as data, for a duplicate email. This runs every `sh` block's curl
 * commands of README.md and docs/*.md, in the order the documents give them, against the real
 * service, and compares the documented error with the one the service sends, so the documents
 * cannot drift from the API unnoticed.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ID_STRATEGIES } from '../src/strategies';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../test/support/service';

const ROOT = path.resolve(__dirname, '..');
/** README.md, then every page of docs/, in name order: where examples may live. */
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
].map((file) => readFileSync(path.join(ROOT, file), 'utf8'));
const API_DOC = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');

function codeBlocks(language: string, docs: string[] = DOCS): string[] {
  return docs.flatMap((doc) =>
    [...doc.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map(
      (match) => match[1],
    ),
  );
}

/** Every curl command of the documents, one string each, in document order. */
const curlCommands = codeBlocks('sh')
  .flatMap((block) => block.split(/\n\n(?=curl )/))
  .map((command) => command.trim())
  .filter((command) => command.startsWith('curl '));

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});

afterAll(async () => {
  await service?.stop();
});

test('the documents have a curl example for every operation of the API', () => {
  const examples = curlCommands.join('\n');
  for (const operation of [
    'createUser',
    'createUsers',
    'user(',
    'userByEmail(',
    'users(',
    'invitees(',
    'updateUser(',
    'deleteUser(',
    'nextSequence',
    'sequence(',
    'sequences(',
    'allocateSequence',
    'confirmReservations',
    'createSequence',
    'setSequence',
    'setSequenceFormat',
    'strategyStats',
  ]) {
    expect(examples).toContain(operation);
  }
  for (const strategy of ID_STRATEGIES) expect(examples).toContain(strategy);
});

test('every curl example, run in order against the service, answers data and no errors', async () => {
  const run = promisify(execFile);
  for (const command of curlCommands) {
    const { stdout } = await run('bash', ['-c', command], {
      env: { ...process.env, API: `${service.url}/graphql`, ADMIN_TOKEN: TEST_ADMIN_TOKEN },
      timeout: 30_000,
    });
    const answer = JSON.parse(stdout) as { data?: unknown; errors?: unknown };
    expect({ command, errors: answer.errors }).toEqual({ command, errors: undefined });
    expect(answer.data).toEqual(expect.any(Object));
    // The batch example confirms the three values it held, as its text says.
    if (command.includes('confirmReservations(ids: $ids)')) {
      expect(answer.data).toMatchObject({ confirmReservations: { settled: 3, failed: 0 } });
    }
  }
});

test('the documented duplicate-email error is the one the service sends, as data', async () => {
  const documented = JSON.parse(codeBlocks('json', [API_DOC])[0]) as { data: object };
  const create =
    'mutation ($input: CreateUserInput!) { createUser(input: $input) { user { id } error { code message field retryable } } }';
  const input = { name: 'Twice', email: 'twice@example.test' };

  await service.graphql(create, { input });
  const { body } = await service.graphql(create, { input });

  expect(body.errors).toBeUndefined();
  expect(body).toEqual(documented);
});
