/**
 * The commands a test's client sent to one database while something ran, from the driver's own
 * command monitoring (`commandStarted`; the client must be opened with `monitorCommands: true`).
 *
 * Why per database: test files run in parallel on one server, each in its own database, and
 * concurrent work shares one client, so the database is what tells a test's commands apart.
 */
import type { CommandStartedEvent, Db, MongoClient } from 'mongodb';

export async function commandsSentTo(
  client: MongoClient,
  db: Db,
  run: () => Promise<unknown>,
): Promise<CommandStartedEvent[]> {
  const sent: CommandStartedEvent[] = [];
  const listener = (event: CommandStartedEvent) => {
    if (event.databaseName === db.databaseName) sent.push(event);
  };
  client.on('commandStarted', listener);
  try {
    await run();
  } finally {
    client.off('commandStarted', listener);
  }
  return sent;
}
