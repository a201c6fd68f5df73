/**
 * A document above mongod's bounds is refused before anything is applied: no change stream
 * reports it and a restart of the data directory does not bring it back (nothing journaled).
 * conformance/document-limits.test.ts holds the answers mongod gives.
 */
import { MongoClient } from 'mongodb';
import { startStandin } from '../src';
import { bsonWithString, rawCommand } from './conformance/raw-wire';
import { freshDataDir } from './data-dir';

const dataDir = freshDataDir('standin-document-limits-');

test('a refused 20 MB insert reaches neither a change stream nor the journal', async () => {
  const first = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const client = await MongoClient.connect(first.uri, { serverSelectionTimeoutMS: 5_000 });
  const collection = client.db('limits').collection('big');
  await collection.insertOne({ _id: 0 as never });
  const stream = collection.watch();
  await stream.tryNext(); // the stream is open from here on
  const reply = await rawCommand(
    { insert: 'big', $db: 'limits' },
    { name: 'documents', documents: [bsonWithString(1, 20 * 1024 * 1024)] },
    { host: '127.0.0.1', port: first.port },
  );
  expect(reply).toMatchObject({ ok: 0, code: 10334 });
  await collection.insertOne({ _id: 2 as never });
  const change = await stream.next();
  expect(change).toMatchObject({ operationType: 'insert', documentKey: { _id: 2 } });
  await stream.close();
  await client.close();
  await first.stop();

  const second = await startStandin({ dataDir: dataDir.path, log: () => undefined });
  const again = await MongoClient.connect(second.uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    const ids = await again.db('limits').collection('big').find().toArray();
    expect(ids).toEqual([{ _id: 0 }, { _id: 2 }]);
  } finally {
    await again.close();
    await second.stop();
  }
});
