/**
 * isTransientDatabaseError against errors the real driver raises: each server code is injected
 * with the `failCommand` fail point (scoped to this file's own appName) and read back from a real
 * `find`, so the test sees exactly what a component would catch.
 */
import { MongoBulkWriteError, MongoNetworkError, type MongoClient } from 'mongodb';
import { isTransientDatabaseError, TRANSIENT_SERVER_CODES } from '../../src/database';
import { clearFailPoint, setFailPoint } from '../reliability/fail-points';
import { connectTestClient, uniqueDbName } from '../support/db';

const appName = uniqueDbName('transient');
let admin: MongoClient;
let client: MongoClient;

beforeAll(async () => {
  admin = await connectTestClient();
  client = await connectTestClient({ appName, retryReads: false, retryWrites: false });
});
afterAll(async () => {
  await client?.close();
  await admin?.close();
});

/** The error a `find` of this file's client gets while the fail point injects `data`. */
async function errorOfFind(data: Parameters<typeof setFailPoint>[3]): Promise<unknown> {
  await setFailPoint(admin, appName, { times: 1 }, data);
  try {
    await client.db(appName).collection('any').findOne({});
    return undefined;
  } catch (err) {
    return err;
  } finally {
    await clearFailPoint(admin, appName);
  }
}

test('every named code is transient, also without a label, and each is named once', async () => {
  const codes = Object.values(TRANSIENT_SERVER_CODES);
  expect(new Set(codes).size).toBe(codes.length);
  for (const code of [24, 112, 133, 134, 202]) expect(codes).toContain(code);
  for (const [name, code] of Object.entries(TRANSIENT_SERVER_CODES)) {
    const err = await errorOfFind({ failCommands: ['find'], errorCode: code });
    expect({ name, code: (err as { code?: number })?.code }).toEqual({ name, code });
    expect({ name, transient: isTransientDatabaseError(err) }).toEqual({ name, transient: true });
  }
});

test('a code the server did not mark transient is transient when the driver labels it', async () => {
  const err = await errorOfFind({
    failCommands: ['find'],
    errorCode: 2,
    errorLabels: ['RetryableWriteError'],
  });
  expect(isTransientDatabaseError(err)).toBe(true);
});

test('a dropped connection is transient', async () => {
  const err = await errorOfFind({ failCommands: ['find'], closeConnection: true });
  expect(err).toBeDefined();
  expect(isTransientDatabaseError(err)).toBe(true);
});

test('an insertMany that failed on a dropped connection is transient, also when its wrapper has no label', async () => {
  await setFailPoint(
    admin,
    appName,
    { times: 1 },
    { failCommands: ['insert'], closeConnection: true },
  );
  let real: unknown;
  try {
    await client
      .db(appName)
      .collection('bulk')
      .insertMany([{ a: 1 }, { a: 2 }]);
  } catch (err) {
    real = err;
  } finally {
    await clearFailPoint(admin, appName);
  }
  expect(real).toBeInstanceOf(MongoBulkWriteError);
  expect(isTransientDatabaseError(real)).toBe(true);
  // The shape the outage test met when the database stopped under a group transaction: the same
  // wrapper around an unlabelled "connection closed" (the log showed no label on either).
  const unlabelled = new MongoBulkWriteError(
    new MongoNetworkError('connection 4 to 127.0.0.1:39803 closed'),
    (real as MongoBulkWriteError).result,
  );
  expect(unlabelled.errorLabels).toEqual([]);
  expect(isTransientDatabaseError(unlabelled)).toBe(true);
  // A bulk write refused by the server for the documents themselves is not.
  const refused = new MongoBulkWriteError(
    { message: 'E11000 duplicate key', code: 11000, writeErrors: [] },
    (real as MongoBulkWriteError).result,
  );
  expect(isTransientDatabaseError(refused)).toBe(false);
});

test("client mistakes, duplicate keys and the service's own errors are not transient", async () => {
  for (const code of [2, 11000, 14, 13, 26]) {
    const err = await errorOfFind({ failCommands: ['find'], errorCode: code });
    expect({ code, transient: isTransientDatabaseError(err) }).toEqual({ code, transient: false });
  }
  expect(isTransientDatabaseError(new Error('bug'))).toBe(false);
  expect(isTransientDatabaseError({ code: 91 })).toBe(false);
  expect(isTransientDatabaseError(undefined)).toBe(false);
});
