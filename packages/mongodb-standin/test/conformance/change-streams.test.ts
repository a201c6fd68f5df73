/**
 * Change streams through driver 7.9, identical on a real replica set and the stand-in: a watch()
 * sees another client's writes in order with mongod's event shapes; a stream resumed from the
 * last token it returned misses nothing and repeats nothing; a waiting getMore is woken by a
 * write (events arrive in order and complete, whatever the timing); stages after $changeStream
 * filter and reshape events; tokens from nowhere and options that conflict are refused.
 */
import { Document, MongoServerError, ResumeToken } from 'mongodb';
import { connectTestClient } from '../support/db';
import { useConformanceDb } from './fixture';

const shared = useConformanceDb('conformance_changes');

/** The next `count` events of a stream (bounded by the test's timeout). */
async function take<T extends Document>(
  stream: { next(): Promise<T> },
  count: number,
): Promise<T[]> {
  const events: T[] = [];
  while (events.length < count) events.push(await stream.next());
  return events;
}

test('a collection watch sees inserts, updates, replaces and deletes made by another client, in order', async () => {
  const watched = shared.db.collection('watched');
  await watched.insertOne({ _id: 'seed' as never });
  const stream = watched.watch([], { fullDocument: 'updateLookup' });
  await stream.tryNext(); // the stream is open on the server before the writes
  const other = await connectTestClient();
  try {
    const theirs = other.db(shared.db.databaseName).collection('watched');
    await theirs.insertOne({ _id: 1 as never, n: 1, tags: ['a', 'b', 'c'] });
    await theirs.updateOne(
      { _id: 1 as never },
      { $set: { n: 2, 'sub.x': 1 }, $unset: { tags: '' } },
    );
    await theirs.replaceOne({ _id: 1 as never }, { replaced: true });
    await theirs.deleteOne({ _id: 1 as never });
    await shared.db.collection('elsewhere').insertOne({ ignored: true });
    const [inserted, updated, replaced, deleted] = await take(stream, 4);
    expect(inserted).toMatchObject({
      operationType: 'insert',
      ns: { db: shared.db.databaseName, coll: 'watched' },
      documentKey: { _id: 1 },
      fullDocument: { _id: 1, n: 1, tags: ['a', 'b', 'c'] },
    });
    expect(updated).toMatchObject({
      operationType: 'update',
      documentKey: { _id: 1 },
      updateDescription: {
        updatedFields: { n: 2, sub: { x: 1 } },
        removedFields: ['tags'],
        truncatedArrays: [],
      },
      // updateLookup reads the document when the event is read: by then it was deleted
      fullDocument: null,
    });
    expect(replaced).toMatchObject({
      operationType: 'replace',
      fullDocument: { _id: 1, replaced: true },
    });
    expect(deleted).toMatchObject({ operationType: 'delete', documentKey: { _id: 1 } });
    expect(deleted).not.toHaveProperty('fullDocument');
    const tokens = [inserted, updated, replaced, deleted].map((event) => event._id as Document);
    for (const token of tokens) expect(typeof token._data).toBe('string');
    expect(new Set(tokens.map((token) => token._data)).size).toBe(4);
    expect(inserted.clusterTime!.lessThan(deleted.clusterTime!)).toBe(true);
    expect((deleted as { wallTime?: Date }).wallTime).toBeInstanceOf(Date);
  } finally {
    await stream.close();
    await other.close();
  }
});

test('a stream resumed after close from the last token it returned misses nothing and repeats nothing', async () => {
  const coll = shared.db.collection('resumed');
  const first = coll.watch();
  await first.tryNext();
  await coll.insertMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
  const seen = await take(first, 2);
  const token = first.resumeToken as ResumeToken;
  expect(token).toEqual(seen[1]._id);
  await first.close();
  await coll.insertMany([{ n: 4 }, { n: 5 }]);
  const resumed = coll.watch([], { resumeAfter: token });
  try {
    const rest = await take(resumed, 3);
    const numbers = [...seen, ...rest].map(
      (event) => (event as unknown as { fullDocument: { n: number } }).fullDocument.n,
    );
    expect(numbers).toEqual([1, 2, 3, 4, 5]);
    await coll.insertOne({ n: 6 });
    const [sixth] = await take(resumed, 1);
    expect(sixth).toMatchObject({ operationType: 'insert', fullDocument: { n: 6 } });
  } finally {
    await resumed.close();
  }
});

/**
 * The stream waits up to 120 s per getMore and the test has 30 s: only a getMore woken by the
 * writes can deliver all 20 events in time (nothing here measures how fast).
 */
test('a getMore waiting for events is woken by writes: 20 spaced-out writes arrive complete and in order', async () => {
  const watcher = await connectTestClient({ monitorCommands: true });
  const other = await connectTestClient();
  const stream = watcher
    .db(shared.db.databaseName)
    .collection('awaited')
    .watch([], { maxAwaitTimeMS: 120_000 });
  try {
    const opened = new Promise<void>((resolve) =>
      watcher.on('commandSucceeded', (event) => {
        if (event.commandName === 'aggregate') resolve();
      }),
    );
    const reading = take(stream, 20);
    await opened;
    const theirs = other.db(shared.db.databaseName).collection('awaited');
    for (let n = 0; n < 20; n++) {
      await theirs.insertOne({ n });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const events = (await reading) as unknown as Array<{ fullDocument: { n: number } }>;
    expect(events.map((event) => event.fullDocument.n)).toEqual(
      Array.from({ length: 20 }, (_, n) => n),
    );
  } finally {
    await stream.close();
    await watcher.close();
    await other.close();
  }
}, 30_000);

test('a database watch sees every collection of its database, a $match and $project shape what is returned', async () => {
  const stream = shared.db.watch([
    { $match: { operationType: 'insert', 'fullDocument.keep': true } },
    { $project: { operationType: 1, ns: 1, 'fullDocument.keep': 1 } },
  ]);
  await stream.tryNext();
  try {
    await shared.db.collection('db_a').insertOne({ keep: true, extra: 1 });
    await shared.db.collection('db_b').insertOne({ keep: false });
    await shared.db.collection('db_b').insertOne({ keep: true, extra: 2 });
    const events = await take(stream, 2);
    expect(events.map((event) => (event as { ns: { coll: string } }).ns.coll)).toEqual([
      'db_a',
      'db_b',
    ]);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(['_id', 'fullDocument', 'ns', 'operationType']);
      expect((event as { fullDocument: Document }).fullDocument).toEqual({ keep: true });
    }
  } finally {
    await stream.close();
  }
});

test('dropping a watched collection ends its stream with drop then invalidate', async () => {
  const coll = shared.db.collection('dropped');
  await coll.insertOne({ n: 1 });
  const stream = coll.watch();
  await stream.tryNext();
  await coll.drop();
  const [drop, invalidate] = await take(stream, 2);
  expect(drop).toMatchObject({
    operationType: 'drop',
    ns: { db: shared.db.databaseName, coll: 'dropped' },
  });
  expect(invalidate).toMatchObject({ operationType: 'invalidate' });
  expect(stream.closed).toBe(true);
  const again = coll.watch([], { resumeAfter: invalidate._id });
  await expect(again.tryNext()).rejects.toMatchObject({ code: 260 });
  await again.close();
  const after = coll.watch([], { startAfter: invalidate._id });
  try {
    await after.tryNext();
    await coll.insertOne({ n: 2 });
    const [inserted] = await take(after, 1);
    expect(inserted).toMatchObject({ operationType: 'insert', fullDocument: { n: 2 } });
  } finally {
    await after.close();
  }
});

test('a stream whose pipeline removes _id fails with ChangeStreamFatalError at its first event', async () => {
  const coll = shared.db.collection('no_id');
  const stream = coll.watch([{ $project: { _id: 0 } }]);
  await stream.tryNext();
  await coll.insertOne({ n: 1 });
  const error = await stream.next().catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(MongoServerError);
  expect(error).toMatchObject({ code: 280 });
  expect((error as MongoServerError).hasErrorLabel('NonResumableChangeStreamError')).toBe(true);
  await stream.close();
});

test('refused: an unknown stage after $changeStream, a stage not allowed there, two resume options, a token from nowhere', async () => {
  const coll = shared.db.collection('refusals');
  const open = (spec: Document, pipeline: Document[] = []) =>
    coll
      .aggregate([{ $changeStream: spec }, ...pipeline])
      .toArray()
      .then(
        () => 'opened',
        (error: unknown) => error,
      );
  expect(await open({}, [{ $unsupported: 'foo' }])).toMatchObject({ code: 40324 });
  expect(await open({}, [{ $group: { _id: null } }])).toBeInstanceOf(MongoServerError);
  const stream = coll.watch();
  await stream.tryNext();
  await coll.insertOne({ n: 1 });
  const [event] = await take(stream, 1);
  await stream.close();
  const token = event._id as Document;
  expect(await open({ resumeAfter: token, startAfter: token })).toMatchObject({ code: 40674 });
  expect(await open({ resumeAfter: { _data: 'not a token' } })).toBeInstanceOf(MongoServerError);
});

test('a rename shows as rename then invalidate on the renamed collection, as rename on its database', async () => {
  const source = shared.db.collection('rename_from');
  await source.insertOne({ n: 1 });
  await shared.db.dropCollection('rename_to').catch(() => undefined);
  const onCollection = source.watch();
  const onDatabase = shared.db.watch([{ $match: { operationType: 'rename' } }]);
  await onCollection.tryNext();
  await onDatabase.tryNext();
  try {
    const renamed = await source.rename('rename_to');
    await expect(renamed.findOne({}, { projection: { _id: 0 } })).resolves.toEqual({ n: 1 });
    const names = { db: shared.db.databaseName };
    const [rename, invalidate] = await take(onCollection, 2);
    expect(rename).toMatchObject({
      operationType: 'rename',
      ns: { ...names, coll: 'rename_from' },
      to: { ...names, coll: 'rename_to' },
    });
    expect(invalidate).toMatchObject({ operationType: 'invalidate' });
    const [seen] = await take(onDatabase, 1);
    expect(seen).toMatchObject({ operationType: 'rename', to: { ...names, coll: 'rename_to' } });
  } finally {
    await onCollection.close();
    await onDatabase.close();
  }
});

test('pre- and post-images: only for writes made while changeStreamPreAndPostImages is enabled', async () => {
  const coll = shared.db.collection('images');
  await coll.insertMany([
    { _id: 1 as never, v: 'before' },
    { _id: 2 as never, v: 'before' },
  ]);
  const stream = coll.watch([], {
    fullDocument: 'whenAvailable',
    fullDocumentBeforeChange: 'whenAvailable',
  });
  await stream.tryNext();
  try {
    await coll.updateOne({ _id: 1 as never }, { $set: { v: 'without images' } });
    await shared.db.command({
      collMod: 'images',
      changeStreamPreAndPostImages: { enabled: true },
    });
    await coll.updateOne({ _id: 2 as never }, { $set: { v: 'with images' } });
    await coll.deleteOne({ _id: 2 as never });
    const [plain, imaged, deleted] = (await take(stream, 3)) as Document[];
    expect(plain).toMatchObject({ fullDocument: null, fullDocumentBeforeChange: null });
    expect(imaged).toMatchObject({
      fullDocument: { _id: 2, v: 'with images' },
      fullDocumentBeforeChange: { _id: 2, v: 'before' },
    });
    expect(deleted).toMatchObject({
      operationType: 'delete',
      fullDocumentBeforeChange: { _id: 2, v: 'with images' },
    });
  } finally {
    await stream.close();
  }
  const strict = coll.watch([], { fullDocumentBeforeChange: 'required' });
  await strict.tryNext();
  await shared.db.command({ collMod: 'images', changeStreamPreAndPostImages: { enabled: false } });
  await coll.updateOne({ _id: 1 as never }, { $set: { v: 'after disabling' } });
  await expect(strict.next()).rejects.toBeInstanceOf(MongoServerError);
  await strict.close();
});

test('stages after $changeStream compute fields: a $project of expressions and literals', async () => {
  const coll = shared.db.collection('computed');
  const stream = coll.watch([
    { $project: { kind: '$operationType', ns: 1, 'extra.label': 'literal', n: '$fullDocument.n' } },
  ]);
  await stream.tryNext();
  try {
    await coll.insertOne({ n: 41 });
    const [event] = (await take(stream, 1)) as Document[];
    const { _id, ...rest } = event;
    expect(_id).toBeDefined();
    expect(rest).toEqual({
      kind: 'insert',
      ns: { db: shared.db.databaseName, coll: 'computed' },
      extra: { label: 'literal' },
      n: 41,
    });
  } finally {
    await stream.close();
  }
});

test('a getMore failing with a resumable error is resumed by the driver from its token; a non-resumable one surfaces', async () => {
  const watcher = await connectTestClient({ monitorCommands: true });
  const aggregates: Document[] = [];
  watcher.on('commandStarted', (event) => {
    if (event.commandName === 'aggregate') aggregates.push(event.command);
  });
  const coll = watcher.db(shared.db.databaseName).collection('resumable');
  const admin = shared.client.db('admin');
  const failGetMore = (errorCode: number) =>
    admin.command({
      configureFailPoint: 'failGetMoreAfterCursorCheckout',
      mode: { times: 1 },
      data: { errorCode },
    });
  try {
    const stream = coll.watch();
    await stream.tryNext();
    await failGetMore(6); // HostUnreachable: resumable
    await shared.db.collection('resumable').insertOne({ n: 1 });
    await expect(stream.next()).resolves.toMatchObject({ fullDocument: { n: 1 } });
    expect(aggregates).toHaveLength(2);
    expect(aggregates[1].pipeline[0].$changeStream.resumeAfter).toBeDefined();
    await failGetMore(50); // MaxTimeMSExpired: not resumable
    await expect(stream.next()).rejects.toMatchObject({ code: 50 });
    await stream.close();
  } finally {
    await admin.command({ configureFailPoint: 'failGetMoreAfterCursorCheckout', mode: 'off' });
    await watcher.close();
  }
});
