/**
 * `npm start` without MONGODB_URI, run as a new user would, in a fresh folder: the embedded
 * stand-in (forced with EMBEDDED_DB=standin, so the test never waits on a download) keeps its
 * data in ./.data/standin. Users created before a SIGKILL of the service are there after the
 * restart and the counter continues above every stored id; the start-up line names the database
 * with a URI that the driver (as mongosh would) can use.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MongoClient } from 'mongodb';
import { postGraphQL } from '../support/service';

const ROOT = path.resolve(__dirname, '..', '..');
const TSX_LOADER = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'embedded-start-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  url: string;
  output: string;
}

/** Runs src/main.ts in `folder` and resolves once it announces it is ready. */
function startService(): Promise<Started> {
  const child = spawn(
    process.execPath,
    ['--import', TSX_LOADER, path.join(ROOT, 'src', 'main.ts')],
    {
      cwd: folder,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        EMBEDDED_DB: 'standin',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /service ready at (http:\/\/[^/"\s]+)/.exec(output)?.[1];
      if (url) resolve({ child, url, output });
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}: ${output}`)));
  });
}

function stopped(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

const CREATE = `mutation ($input: CreateUserInput!) { createUser(input: $input) { user { id email } } }`;

async function createUser(url: string, n: number): Promise<number> {
  const answer = await postGraphQL<{ createUser: { user: { id: string } } }>(url, CREATE, {
    input: { name: `User ${n}`, email: `user${n}@example.com` },
  });
  return Number(answer.body.data!.createUser.user.id);
}

test('users and the counter survive a SIGKILL of the service; the start-up line names the stand-in and its mongosh URI', async () => {
  const first = await startService();
  const ids = await Promise.all([1, 2, 3, 4, 5].map((n) => createUser(first.url, n)));
  await stopped(first.child, 'SIGKILL');

  const second = await startService();
  try {
    expect(await readdir(path.join(folder, '.data'))).toEqual(['standin']);
    const line = /embedded database: .*/.exec(second.output)![0];
    expect(line).toMatch(/stand-in \(not MongoDB\), data in .*\.data\/standin/);
    expect(second.output).toMatch(/NOT MongoDB/);
    expect(second.output).not.toMatch(/lost/i);
    const mongoshUri = /mongosh (mongodb:\/\/\S+?)(?=["\s]|$)/.exec(line)![1];
    const client = await MongoClient.connect(mongoshUri, { serverSelectionTimeoutMS: 3_000 });
    const stored = await client.db().collection('users').find({}).toArray();
    await client.close();
    const byNumber = (a: number, b: number) => a - b;
    expect(stored.map((user) => Number(user._id)).sort(byNumber)).toEqual(ids.sort(byNumber));
    const next = await createUser(second.url, 6);
    expect(next).toBeGreaterThan(Math.max(...ids));
  } finally {
    expect(await stopped(second.child, 'SIGTERM')).toBe(0);
  }
});
