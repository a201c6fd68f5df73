/**
 * TRANSACTION over HTTP, with real concurrency through the real driver: two service instances on
 * one database, duplicate emails mixed in, and fail points on the insert and on the commit. Each
 * ends with the stored ids exactly 1..N (no hole, no duplicate), every acknowledged user stored,
 * and the `userid` counter at N.
 */
import type { Db, MongoClient } from 'mongodb';
import { connectTestClient, uniqueDbName } from '../support/db';
import { ADMIN_HEADERS, startTestService, type TestService } from '../support/service';
import { CREATE_USER } from './client';
import {
  clearFailPoint,
  faultServer,
  setFailPoint,
  type FailCommandData,
  type FailPointMode,
  type FaultServer,
} from './fail-points';

let server: FaultServer;
beforeAll(async () => {
  server = await faultServer();
});
afterAll(() => server.stop());

interface Answer {
  id: number | null;
  code: string | null;
  email: string;
}

async function create(service: TestService, name: string, email: string): Promise<Answer> {
  const { body } = await service.graphql(
    CREATE_USER,
    { input: { name, email }, strategy: 'TRANSACTION' },
    ADMIN_HEADERS,
  );
  const payload = body.data?.createUser;
  if (payload?.user) return { id: Number(payload.user.id), code: null, email };
  return { id: null, code: payload?.error?.code ?? body.errors?.[0]?.extensions?.code, email };
}

/** Stored ids are exactly 1..N, each acknowledged user is stored with its email, counter == N. */
async function expectNoHole(db: Db, acknowledged: Answer[]): Promise<void> {
  const stored = await db
    .collection('users')
    .find({}, { projection: { email: 1 }, sort: { _id: 1 } })
    .toArray();
  const ids = stored.map((doc) => Number(doc._id));
  expect(ids).toEqual(ids.map((_, i) => i + 1));
  const emailOf = new Map(stored.map((doc) => [Number(doc._id), doc.email]));
  for (const answer of acknowledged) expect(emailOf.get(answer.id as number)).toBe(answer.email);
  expect(new Set(acknowledged.map((a) => a.id)).size).toBe(acknowledged.length);
  const counter = await db.collection('counters').findOne({ _id: 'userid' as never });
  expect(Number(counter?.seq ?? 0)).toBe(ids.length);
}

async function dbOf(dbName: string): Promise<{ client: MongoClient; db: Db }> {
  const client = server.mongodbUri === undefined ? await connectTestClient() : server.client;
  return { client, db: client.db(dbName) };
}

test('two instances x 16 clients with duplicate emails: ids exactly 1..N, every acknowledged user stored', async () => {
  const dbName = uniqueDbName('txn-two');
  const services = [
    await startTestService({ dbName, mongodbUri: server.mongodbUri }),
    await startTestService({ dbName, mongodbUri: server.mongodbUri }),
  ];
  const { client, db } = await dbOf(dbName);
  try {
    const PER_CLIENT = 8;
    const answers = (
      await Promise.all(
        Array.from({ length: 32 }, async (_, c) => {
          const service = services[c % 2];
          const mine: Answer[] = [];
          for (let i = 0; i < PER_CLIENT; i += 1) {
            const n = c * PER_CLIENT + i;
            // Every fourth email repeats one used by another client, on either instance.
            const email = n % 4 === 3 ? `shared${n % 12}@example.com` : `u${n}@example.com`;
            mine.push(await create(service, `user ${n}`, email));
          }
          return mine;
        }),
      )
    ).flat();
    const acknowledged = answers.filter((a) => a.id !== null);
    const codes = new Set(answers.filter((a) => a.id === null).map((a) => a.code));
    // Only a taken email, or (bounded retries between instances ran out) a retryable contention.
    expect([...codes].filter((code) => code !== 'EMAIL_TAKEN' && code !== 'ID_CONTENTION')).toEqual(
      [],
    );
    expect(answers.filter((a) => a.code === 'EMAIL_TAKEN').length).toBeGreaterThan(0);
    // Every unique email was acknowledged or refused only as contention.
    expect(acknowledged.length).toBeGreaterThan(180);
    await expectNoHole(db, acknowledged);
  } finally {
    for (const service of services) await service.stop();
    if (client !== server.client) await client.close();
  }
}, 120_000);

/**
 * `retries`: what `strategyStats` must then show for TRANSACTION. Exact where the service alone
 * retries (a failed insert runs the whole transaction again); at least one where the driver also
 * retries a commit once by itself before the service sends it again.
 */
const FAULTS: Array<{
  name: string;
  fault: FailCommandData;
  mode: FailPointMode;
  retries: { atLeast: number; exactly?: number; writeConflicts: number };
}> = [
  {
    name: 'a non-retryable error on the insert (InternalError 1): that request fails',
    fault: { failCommands: ['insert'], errorCode: 1 },
    mode: { times: 1 },
    retries: { atLeast: 0, exactly: 0, writeConflicts: 0 },
  },
  {
    name: 'a transient error on the insert (WriteConflict 112): the transaction runs again',
    fault: { failCommands: ['insert'], errorCode: 112 },
    mode: { times: 2 },
    retries: { atLeast: 2, exactly: 2, writeConflicts: 2 },
  },
  {
    name: 'the connection closed on commitTransaction: the commit is sent again',
    fault: { failCommands: ['commitTransaction'], closeConnection: true },
    mode: { times: 2 },
    retries: { atLeast: 1, writeConflicts: 0 },
  },
  {
    name: 'ShutdownInProgress (91) on commitTransaction, three times: unknown result, commit again',
    fault: { failCommands: ['commitTransaction'], errorCode: 91 },
    mode: { times: 3 },
    retries: { atLeast: 1, writeConflicts: 0 },
  },
  {
    name: 'a non-retryable error on commitTransaction (InternalError 1): that request fails',
    fault: { failCommands: ['commitTransaction'], errorCode: 1 },
    mode: { times: 1 },
    retries: { atLeast: 0, exactly: 0, writeConflicts: 0 },
  },
];

/** TRANSACTION's retries and write conflicts as `strategyStats` reports them. */
async function transactionRetries(
  service: TestService,
): Promise<{ transactionRetries: number; writeConflicts: number }> {
  const { body } = await service.graphql(
    '{ strategyStats { strategy transactionRetries writeConflicts } }',
    {},
    ADMIN_HEADERS,
  );
  const { transactionRetries, writeConflicts } = body.data.strategyStats.find(
    (s: { strategy: string }) => s.strategy === 'TRANSACTION',
  );
  return { transactionRetries, writeConflicts };
}

test.each(FAULTS.map((f) => [f.name, f] as const))(
  'fault: %s; no hole after, the retries counted',
  async (_name, { fault, mode, retries }) => {
    const dbName = uniqueDbName('txn-fault');
    const service = await startTestService({
      dbName,
      mongodbUri: server.mongodbUri,
      env: { DB_TIMEOUT_MS: '3000' },
    });
    const { client, db } = await dbOf(dbName);
    const appName = server.scoped ? (service.client.options.appName as string) : null;
    try {
      const before = [
        await create(service, 'first', 'first@example.com'),
        await create(service, 'second', 'second@example.com'),
      ];
      await setFailPoint(server.client, appName, mode, fault);
      let during: Answer[];
      let fired: number;
      try {
        during = await Promise.all(
          Array.from({ length: 4 }, (_, i) => create(service, `during ${i}`, `d${i}@example.com`)),
        );
      } finally {
        fired = await clearFailPoint(server.client, appName);
      }
      expect(fired).toBeGreaterThanOrEqual(1);
      // A failed request answers a clear code, never a crash.
      for (const answer of during.filter((a) => a.id === null)) {
        expect(['SERVICE_UNAVAILABLE', 'ID_CONTENTION', 'INTERNAL_SERVER_ERROR']).toContain(
          answer.code,
        );
      }
      const after = [
        await create(service, 'after', 'after@example.com'),
        await create(service, 'first again', 'first@example.com'), // refused: no id consumed
        await create(service, 'last', 'last@example.com'),
      ];
      expect(after.map((a) => a.code)).toEqual([null, 'EMAIL_TAKEN', null]);
      const counted = await transactionRetries(service);
      expect(counted.transactionRetries).toBeGreaterThanOrEqual(retries.atLeast);
      if (retries.exactly !== undefined) expect(counted.transactionRetries).toBe(retries.exactly);
      expect(counted.writeConflicts).toBe(retries.writeConflicts);
      await expectNoHole(
        db,
        [...before, ...during, ...after].filter((a) => a.id !== null),
      );
    } finally {
      await service.stop();
      if (client !== server.client) await client.close();
    }
  },
  60_000,
);
