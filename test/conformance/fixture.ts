/**
 * One client and one private database per conformance file, opened before its tests and
 * dropped after, so files run in parallel on one server (real MongoDB or the stand-in).
 */
import { Db, MongoClient, MongoClientOptions } from 'mongodb';
import { connectTestClient, uniqueDbName } from '../support/db';

export interface ConformanceDb {
  readonly client: MongoClient;
  readonly db: Db;
}

export function useConformanceDb(prefix: string, options?: MongoClientOptions): ConformanceDb {
  const opened: { client?: MongoClient; db?: Db } = {};
  beforeAll(async () => {
    opened.client = await connectTestClient(options);
    opened.db = opened.client.db(uniqueDbName(prefix));
  });
  afterAll(async () => {
    await opened.db?.dropDatabase();
    await opened.client?.close();
  });
  return {
    get client() {
      return opened.client!;
    },
    get db() {
      return opened.db!;
    },
  };
}
