/**
 * What the sequences tests share: one client per test file, with command monitoring on, to the
 * database the harness picked; a fresh database per test; and a count of the commands of one name
 * sent to it, from the driver's own events.
 */
import type { CommandStartedEvent, Db, Int32, Long, MongoClient } from 'mongodb';
import { Sequences, type SequencesOptions } from '../../src/sequences';
import { commandsSentTo } from '../support/commands';
import { connectTestClient, uniqueDbName } from '../support/db';
import { sequencesOptions } from '../support/domain-options';

export const userid = { name: 'userid' };

export class SequencesTestBed {
  private connected?: MongoClient;

  /** A test bed whose client is opened before this file's tests and closed after them. */
  static forThisFile(): SequencesTestBed {
    const bed = new SequencesTestBed();
    beforeAll(async () => {
      bed.connected = await connectTestClient({ monitorCommands: true });
    });
    afterAll(async () => {
      await bed.connected?.close();
    });
    return bed;
  }

  private get client(): MongoClient {
    if (this.connected === undefined) throw new Error('the test bed is used outside a test');
    return this.connected;
  }

  /** A fresh database. */
  db(): Db {
    return this.client.db(uniqueDbName());
  }

  /** Another "process" on `db`: its own definition cache; the service's settings unless overridden. */
  sequences(db: Db, options?: Partial<SequencesOptions>): Sequences {
    return new Sequences(db, { ...sequencesOptions, ...options });
  }

  /** The commands sent to `db` while `run` ran, in order. */
  commandsSent(db: Db, run: () => Promise<unknown>): Promise<CommandStartedEvent[]> {
    return commandsSentTo(this.client, db, run);
  }

  /** How many commands named `commandName` were sent to `db` while `run` ran. */
  async countCommands(db: Db, commandName: string, run: () => Promise<unknown>): Promise<number> {
    const sent = await this.commandsSent(db, run);
    return sent.filter((event) => event.commandName === commandName).length;
  }
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
