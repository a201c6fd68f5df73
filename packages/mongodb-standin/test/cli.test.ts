/** `npm run standin`: announces one ready line with the URI, serves the driver, stops on SIGTERM. */
import { ChildProcess, spawn } from 'node:child_process';
import { MongoClient } from 'mongodb';

/** The CLI started with `args`, once its ready line names the URI (rejects with its output if it exits). */
function startCli(args: string[]): Promise<{ child: ChildProcess; uri: string; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', `${__dirname}/../src/cli.ts`, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready line; output so far: ${output}`)),
      20_000,
    );
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${output}`));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /mongodb:\/\/127\.0\.0\.1:\d+\/\S*(?=\n)/.exec(output)?.[0];
      if (found) {
        clearTimeout(timer);
        resolve({ child, uri: found, output });
      }
    });
  });
}

function stopped(child: ChildProcess): Promise<number | null> {
  return new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

test('the CLI prints the URI once it accepts connections and exits cleanly on SIGTERM', async () => {
  const { child, uri, output } = await startCli(['--port', '0']);
  expect(output.split('\n').filter((line) => line.includes('mongodb://'))).toHaveLength(1);
  expect(output).toMatch(/stand-in/);
  // a one-member replica set by default: the URI names the set and the driver finds its primary
  expect(uri).toMatch(/\/\?replicaSet=rs0$/);
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5_000 });
  await expect(client.db('cli').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
  await expect(client.db('admin').command({ hello: 1 })).resolves.toMatchObject({
    setName: 'rs0',
    isWritablePrimary: true,
  });
  await expect(
    client.db('admin').command({ getParameter: 1, transactionLifetimeLimitSeconds: 1 }),
  ).resolves.toMatchObject({ transactionLifetimeLimitSeconds: 60 });
  await client.close();
  expect(await stopped(child)).toBe(0);
});

test('--transaction-lifetime-limit-seconds sets the lifetime; a value below 1 is refused', async () => {
  const { child, uri } = await startCli([
    '--port',
    '0',
    '--transaction-lifetime-limit-seconds',
    '7',
  ]);
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5_000 });
  await expect(
    client.db('admin').command({ getParameter: 1, transactionLifetimeLimitSeconds: 1 }),
  ).resolves.toMatchObject({ transactionLifetimeLimitSeconds: 7 });
  await client.close();
  expect(await stopped(child)).toBe(0);
  await expect(
    startCli(['--port', '0', '--transaction-lifetime-limit-seconds', '0']),
  ).rejects.toThrow(/exited with 1: .*--transaction-lifetime-limit-seconds needs an integer/);
});
