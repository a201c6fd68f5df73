/** `npm run standin`: announces one ready line with the URI, serves the driver, stops on SIGTERM. */
import { spawn } from 'node:child_process';
import { MongoClient } from 'mongodb';

test('the CLI prints the URI once it accepts connections and exits cleanly on SIGTERM', async () => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', `${__dirname}/../src/cli.ts`, '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const uri = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready line; output so far: ${output}`)),
      20_000,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /mongodb:\/\/127\.0\.0\.1:\d+\/\S*(?=\n)/.exec(output)?.[0];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
  });
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
  await client.close();
  const exitCode = await new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
  expect(exitCode).toBe(0);
});
