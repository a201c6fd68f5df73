/**
 * Restarts that write nothing leave no journal generation behind: each start opens a new
 * generation, and one that holds no record is deleted at the next start (durable-state.ts), so
 * the directory, and what every start reads, does not grow with the number of restarts.
 */
import { readdir } from 'node:fs/promises';
import { MongoClient } from 'mongodb';
import { startStandin } from '../src';
import { freshDataDir } from './data-dir';

const dataDir = freshDataDir('standin-generations-');

async function journalFiles(): Promise<string[]> {
  return (await readdir(dataDir.path)).filter((name) => name.startsWith('journal.')).sort();
}

test('ten restarts with nothing written keep the journal files bounded and the data whole', async () => {
  const first = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const client = await MongoClient.connect(first.uri, { serverSelectionTimeoutMS: 5_000 });
  await client
    .db('kept')
    .collection('docs')
    .insertOne({ _id: 1 as never, n: 1 });
  await client.close();
  await first.stop();
  for (let restart = 0; restart < 10; restart++) {
    const standin = await startStandin({ dataDir: dataDir.path, log: () => undefined });
    await standin.stop();
  }
  expect((await journalFiles()).length).toBeLessThanOrEqual(2);
  const last = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const reader = await MongoClient.connect(last.uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    expect(await reader.db('kept').collection('docs').find().toArray()).toEqual([{ _id: 1, n: 1 }]);
  } finally {
    await reader.close();
    await last.stop();
  }
});
