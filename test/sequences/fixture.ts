/**
 * What the sequences tests share: one client per test file, with command monitoring on, to the
 * database the harness picked; a fresh database per test; and a count of the `findAndModify`
 * commands (allocations) sent to it, from the driver's own events.
 */
import { MongoClient, type CommandStartedEvent, type Db, type Int32, type Long } from 'mongodb';
import { Sequences, type SequencesOptions } from '../../src/sequences';
import { uniqueDbName } from '../support/db';

export interface SequencesTestBed {
  client: MongoClient;
  /** A fresh database. */
  db(): Db;
  /** Another "process" on `db`: its own definition cache and BLOCK state. */
  sequences(db: Db, options?: SequencesOptions): Sequences;
  /** How many commands named `commandName` were sent to `db` while `run` ran. */
  countCommands(db: Db, commandName: string, run: () => Promise<unknown>): Promise<number>;
  close(): Promise<void>;
}

export async function openTestBed(): Promise<SequencesTestBed> {
  const uri = process.env.TEST_MONGODB_URI;
  if (uri === undefined) throw new Error('TEST_MONGODB_URI is not set: run through jest');
  const client = new MongoClient(uri, { monitorCommands: true, timeoutMS: 20_000 });
  await client.connect();
  return {
    client,
    db: () => client.db(uniqueDbName()),
    sequences: (db, options) => new Sequences(db, options),
    countCommands: async (db, commandName, run) => {
      let seen = 0;
      const listener = (event: CommandStartedEvent) => {
        if (event.databaseName === db.databaseName && event.commandName === commandName) seen += 1;
      };
      client.on('commandStarted', listener);
      try {
        await run();
      } finally {
        client.off('commandStarted', listener);
      }
      return seen;
    },
    close: () => client.close(),
  };
}

/** A counter as the server holds it: BSON types kept (Long, Int32, Double), not promoted. */
export interface RawCounter {
  _id: string;
  seq?: Long | { _bsontype: string };
  start?: Long;
  step?: Int32;
  max?: Long;
}

export function rawCounter(db: Db, id: string): Promise<RawCounter | null> {
  return db
    .collection<RawCounter>('counters')
    .findOne({ _id: id }, { promoteLongs: false, promoteValues: false });
}
