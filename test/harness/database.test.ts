/** The harness's database pick: forced choices are honoured and a bad TEST_MONGO is refused. */
import { MongoClient } from 'mongodb';
import { describeTestDatabase, startTestDatabase } from './database';

const saved = { TEST_MONGO: process.env.TEST_MONGO, MONGODB_URI: process.env.MONGODB_URI };

afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

test('TEST_MONGO=standin starts a stand-in even when MONGODB_URI is set, and it serves the driver', async () => {
  process.env.TEST_MONGO = 'standin';
  process.env.MONGODB_URI = 'mongodb://127.0.0.1:1/';
  const database = await startTestDatabase();
  try {
    expect(database.backend).toBe('standin');
    expect(describeTestDatabase(database)).toMatch(/stand-in.*not MongoDB/);
    const client = await MongoClient.connect(database.uri, { serverSelectionTimeoutMS: 5_000 });
    await expect(client.db('harness').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
    await client.close();
  } finally {
    await database.stop();
  }
});

test('MONGODB_URI wins when nothing is forced, without contacting it', async () => {
  delete process.env.TEST_MONGO;
  process.env.MONGODB_URI = 'mongodb://user:secret@127.0.0.1:1/';
  const database = await startTestDatabase();
  expect(database.backend).toBe('uri');
  expect(describeTestDatabase(database)).not.toContain('secret');
});

test('an unknown TEST_MONGO is refused with the valid choices', async () => {
  process.env.TEST_MONGO = 'mongo';
  await expect(startTestDatabase()).rejects.toThrow(/uri, memory-server, standin/);
});
