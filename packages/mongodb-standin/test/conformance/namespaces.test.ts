/**
 * Names mongod refuses, refused with InvalidNamespace (73): database names with `/ \ . "`,
 * a space or NUL, empty or longer than 63 bytes, for any command; collection names a write
 * would create that are empty, begin with `.`, hold `$` or NUL, or make the namespace longer
 * than 255 bytes. Runs unchanged against real MongoDB (raw OP_MSG where the driver refuses a
 * name itself).
 */
import { useConformanceDb } from './fixture';
import { rawCommand } from './raw-wire';

const shared = useConformanceDb('conformance_namespaces');

test.each([
  ['a path', '../../etc'],
  ['a slash', 'a/b'],
  ['a backslash', 'a\\b'],
  ['a space', 'a b'],
  ['a double quote', 'a"b'],
  ['NUL', 'a\0b'],
  ['nothing', ''],
  ['64 bytes', 'd'.repeat(64)],
])('a database name with %s is InvalidNamespace for reads and writes', async (_case, name) => {
  for (const command of [
    { insert: 'c', documents: [{ _id: 1 }] },
    { find: 'c', filter: {} },
    { ping: 1 },
  ]) {
    await expect(rawCommand({ ...command, $db: name })).resolves.toMatchObject({
      ok: 0,
      code: 73,
    });
  }
});

test('a database name of 63 bytes and one with `$` are valid names for commands', async () => {
  const longest = `${shared.db.databaseName}_`.padEnd(63, 'x');
  const database = shared.client.db(longest);
  await database.collection('c').insertOne({ _id: 1 as never });
  await expect(database.collection('c').countDocuments()).resolves.toBe(1);
  await database.dropDatabase();
  await expect(rawCommand({ ping: 1, $db: 'a$b' })).resolves.toMatchObject({ ok: 1 });
});

test.each([
  ['a path', '../../../tmp/x'],
  ['a leading dot', '.hidden'],
  ['nothing', ''],
  ['a dollar', 'a$b'],
  ['only a dollar', '$'],
  ['NUL', 'a\0b'],
])('a collection named with %s is never created', async (_case, name) => {
  const db = shared.db;
  await expect(db.command({ insert: name, documents: [{ _id: 1 }] })).rejects.toMatchObject({
    code: 73,
  });
  await expect(
    db.command({ update: name, updates: [{ q: { _id: 1 }, u: { $set: { a: 1 } }, upsert: true }] }),
  ).rejects.toMatchObject({ code: 73 });
  await expect(db.command({ create: name })).rejects.toMatchObject({ code: 73 });
  const names = (await db.listCollections().toArray()).map((collection) => collection.name);
  expect(names).not.toContain(name);
});

test('a namespace longer than 255 bytes is InvalidNamespace; 255 is created', async () => {
  const db = shared.db;
  const room = 255 - db.databaseName.length - 1;
  await db.collection('c'.repeat(room)).insertOne({ _id: 1 as never });
  await expect(
    db.command({ insert: 'c'.repeat(room + 1), documents: [{ _id: 1 }] }),
  ).rejects.toMatchObject({ code: 73 });
});
