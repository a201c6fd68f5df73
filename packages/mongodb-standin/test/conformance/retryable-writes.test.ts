/**
 * Retryable writes as a replica set runs them, here and on real MongoDB: a write sent again with
 * the same lsid and txnNumber runs once and answers the first reply (insert, update $inc,
 * delete, findAndModify); an older txnNumber is TransactionTooOld; a retryable write failing
 * with a retriable code is labelled RetryableWriteError (unless the fail point names its own
 * labels), and the driver's retry after such an error, or after a writeConcernError on a write
 * that was applied, leaves the write applied once. Fail points are scoped by appName so files
 * can run at once.
 */
import { ClientSession, Document, Long, MongoServerError } from 'mongodb';
import { useConformanceDb, useScopedFaults } from './fixture';

const shared = useConformanceDb('conformance_retryable_writes');
let session: ClientSession;
/** the session's txnNumbers only grow (the driver pools sessions: tests share its lsid) */
let lastTxnNumber = 0;
const nextTxnNumber = () => ++lastTxnNumber;

beforeAll(() => {
  session = shared.client.startSession();
});
afterAll(async () => {
  await session.endSession();
});

/** A command of `session` with an explicit txnNumber, as the driver sends a retryable write. */
function send(command: Document, txnNumber: number): Promise<Document> {
  return shared.db.command({ ...command, txnNumber: Long.fromNumber(txnNumber) }, { session });
}

const clean = ({ $clusterTime: _c, operationTime: _o, ...reply }: Document) => reply;

test('an update $inc sent twice with one lsid and txnNumber moves the value once and answers the first reply', async () => {
  await shared.db.collection('retry_inc').insertOne({ _id: 1 as never, n: 0 });
  const update = { update: 'retry_inc', updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } } }] };
  const txnNumber = nextTxnNumber();
  const first = await send(update, txnNumber);
  const again = await send(update, txnNumber);
  expect(clean(first)).toMatchObject({ n: 1, nModified: 1, ok: 1 });
  expect(clean(again)).toEqual(clean(first));
  await expect(shared.db.collection('retry_inc').findOne({ _id: 1 as never })).resolves.toEqual({
    _id: 1,
    n: 1,
  });
  await send(update, nextTxnNumber());
  await expect(shared.db.collection('retry_inc').findOne({ _id: 1 as never })).resolves.toEqual({
    _id: 1,
    n: 2,
  });
});

test('an insert retried is no duplicate-key error, and a delete retried deletes nothing more', async () => {
  const coll = shared.db.collection('retry_insert');
  const insert = { insert: 'retry_insert', documents: [{ _id: 1 }, { _id: 2 }, { _id: 3 }] };
  const inserting = nextTxnNumber();
  expect(clean(await send(insert, inserting))).toEqual(clean(await send(insert, inserting)));
  const remove = { delete: 'retry_insert', deletes: [{ q: {}, limit: 1 }] };
  const deleting = nextTxnNumber();
  const first = await send(remove, deleting);
  expect(clean(await send(remove, deleting))).toEqual(clean(first));
  expect(first).toMatchObject({ n: 1 });
  await expect(coll.countDocuments()).resolves.toBe(2);
});

test('findAndModify retried answers the same document without running again', async () => {
  await shared.db.collection('retry_fam').insertOne({ _id: 'c' as never, seq: 0 });
  const command = {
    findAndModify: 'retry_fam',
    query: { _id: 'c' },
    update: { $inc: { seq: 1 } },
    new: true,
  };
  const txnNumber = nextTxnNumber();
  const first = await send(command, txnNumber);
  const again = await send(command, txnNumber);
  expect(first.value).toEqual({ _id: 'c', seq: 1 });
  expect(again.value).toEqual({ _id: 'c', seq: 1 });
  await expect(shared.db.collection('retry_fam').findOne({})).resolves.toEqual({
    _id: 'c',
    seq: 1,
  });
});

test('a txnNumber below the last one of the session is TransactionTooOld (225)', async () => {
  const insert = (id: number) => ({ insert: 'retry_old', documents: [{ _id: id }] });
  const older = nextTxnNumber();
  await send(insert(1), nextTxnNumber());
  const error = await send(insert(2), older).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MongoServerError);
  expect(error).toMatchObject({ code: 225, codeName: 'TransactionTooOld' });
  await expect(shared.db.collection('retry_old').countDocuments()).resolves.toBe(1);
});

describe('labels and the driver retrying, with failCommand scoped by appName', () => {
  const scoped = useScopedFaults(shared, 'retryable', { retryWrites: true });
  const { appName } = scoped;

  const failInsert = (data: Document, times = 1) =>
    shared.client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times },
      data: { failCommands: ['insert'], appName, ...data },
    });

  test('a retriable code on a retryable write carries RetryableWriteError and its codeName', async () => {
    await failInsert({ errorCode: 189 }, 2);
    const coll = scoped.client.db(shared.db.databaseName).collection('labels');
    const error = (await coll
      .insertOne({ _id: 1 as never })
      .catch((e: unknown) => e)) as MongoServerError;
    expect(error).toBeInstanceOf(MongoServerError);
    expect(error).toMatchObject({ code: 189, codeName: 'PrimarySteppedDown' });
    expect(error.hasErrorLabel('RetryableWriteError')).toBe(true);
    await expect(coll.countDocuments()).resolves.toBe(0);
  });

  test('a code outside the retriable category, or errorLabels: [], carries no label', async () => {
    const coll = scoped.client.db(shared.db.databaseName).collection('no_labels');
    await failInsert({ errorCode: 2 });
    const badValue = (await coll.insertOne({}).catch((e: unknown) => e)) as MongoServerError;
    expect(badValue).toMatchObject({ code: 2, codeName: 'BadValue' });
    expect(badValue.hasErrorLabel('RetryableWriteError')).toBe(false);
    await failInsert({ errorCode: 91, errorLabels: [] });
    const unlabelled = (await coll.insertOne({}).catch((e: unknown) => e)) as MongoServerError;
    expect(unlabelled).toMatchObject({ code: 91, codeName: 'ShutdownInProgress' });
    expect(unlabelled.hasErrorLabel('RetryableWriteError')).toBe(false);
  });

  test('the driver retries once after a retriable error; the document is inserted once', async () => {
    await failInsert({ errorCode: 11600 });
    const coll = scoped.client.db(shared.db.databaseName).collection('retried');
    await expect(coll.insertOne({ _id: 1 as never })).resolves.toMatchObject({ insertedId: 1 });
    await expect(coll.countDocuments()).resolves.toBe(1);
  });

  test('a writeConcernError after an applied write is retried and answered from the record', async () => {
    const coll = scoped.client.db(shared.db.databaseName).collection('wce');
    await coll.insertOne({ _id: 'n' as never, n: 0 });
    await shared.client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: {
        failCommands: ['update'],
        appName,
        writeConcernError: { code: 91, errmsg: 'Replication is being shut down' },
      },
    });
    await expect(coll.updateOne({ _id: 'n' as never }, { $inc: { n: 1 } })).resolves.toMatchObject({
      modifiedCount: 1,
    });
    await expect(coll.findOne({ _id: 'n' as never })).resolves.toEqual({ _id: 'n', n: 1 });
  });
});
