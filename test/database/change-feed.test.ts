/**
 * src/database/change-feed.ts through the real driver and the test database's change streams:
 * fresh feeds of one collection and pipeline share one stream, each gets every change; a feed
 * that does not read falls `MAX_QUEUED` behind and is ended with SUBSCRIBER_BEHIND (retryable)
 * while the other goes on; resuming after its cursor replays what it missed, none twice.
 */
import type { Collection, MongoClient } from 'mongodb';
import { MAX_QUEUED } from '../../src/limits';
import {
  openChangeFeed,
  SubscriberBehindError,
  type ChangeFeed,
} from '../../src/database/change-feed';
import { connectTestClient, uniqueDbName } from '../support/db';

let client: MongoClient;
beforeAll(async () => {
  client = await connectTestClient();
});
afterAll(() => client.close());

interface Numbered {
  _id: number;
}

function feedOf(collection: Collection<Numbered>, after: string | null = null) {
  return openChangeFeed(
    collection,
    [{ $match: { operationType: 'insert' } }],
    { after, maxAwaitTimeMS: 500, maxTimeMS: 10_000 },
    (change) => (change.operationType === 'insert' ? change.documentKey._id : null),
  );
}

async function read(feed: ChangeFeed<number>, count: number) {
  const events: Array<{ cursor: string; value: number }> = [];
  while (events.length < count) {
    const next = await feed.next();
    if (next.done) break;
    events.push(next.value);
  }
  return events;
}

test('a feed that falls behind is ended with SUBSCRIBER_BEHIND; the other goes on, and a resume misses none', async () => {
  const collection = client.db(uniqueDbName()).collection<Numbered>('numbered');
  await collection.insertOne({ _id: 0 }); // the database and collection exist before watching
  const [reader, idle] = await Promise.all([feedOf(collection), feedOf(collection)]);
  try {
    // In steps the reading feed keeps up with (it reads each step before the next is written).
    const total = MAX_QUEUED + 100;
    const ids = Array.from({ length: total }, (_, i) => i + 1);
    const seen: number[] = [];
    for (let i = 0; i < total; i += 100) {
      await collection.insertMany(ids.slice(i, i + 100).map((_id) => ({ _id })));
      seen.push(...(await read(reader, 100)).map((event) => event.value));
    }
    expect(seen).toEqual(ids);

    // `idle` read nothing while more than MAX_QUEUED changes were handed out.
    const error = await idle.next().then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(SubscriberBehindError);
    expect(error).toMatchObject({ code: 'SUBSCRIBER_BEHIND', retryable: true });
    expect((await idle.next()).done).toBe(true);

    // It resumes after the last cursor it had (here: where it opened) and misses none.
    const resumed = await feedOf(collection, idle.cursor);
    try {
      expect((await read(resumed, total)).map((event) => event.value)).toEqual(ids);
    } finally {
      await resumed.return();
    }
  } finally {
    await Promise.all([reader.return(), idle.return()]);
  }
});
