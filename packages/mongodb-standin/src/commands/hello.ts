/**
 * `hello` / `isMaster`: presents the primary of a one-member replica set (state/replica-set.ts),
 * or a writable standalone in standalone mode, with wire versions 0–21 (MongoDB up to 7.0,
 * which drivers 6 and 7 accept), no compression, and logical sessions (so the driver sends
 * lsid), and in both modes the topologyVersion of state/hello-monitors.ts (a monitor's awaitable
 * hello is answered there, by the server). The first handshake's `client.application.name`
 * becomes the connection's appName, which fail points use to target one client: the server reads
 * it (noteAppName) before it checks fail points, as mongod reads a hello's client metadata
 * before failCommand, so a fail point scoped to an appName also fails the handshake that
 * announces it.
 */
import { CommandDefinition, ConnectionInfo } from './context';
import { Document, isPlainDocument } from '../engine/values';
import { LOGICAL_SESSION_TIMEOUT_MINUTES } from '../state/replica-set';

export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;

export const hello: CommandDefinition = {
  name: 'hello',
  aliases: ['isMaster', 'ismaster'],
  fields: 'any',
  run(command, context) {
    const legacy = !('hello' in command);
    return {
      helloOk: true,
      ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
      topologyVersion: context.server.monitors.topologyVersion(),
      ...context.server.replica?.helloFields(),
      maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
      maxMessageSizeBytes: 48_000_000,
      maxWriteBatchSize: 100_000,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: LOGICAL_SESSION_TIMEOUT_MINUTES,
      connectionId: context.connection.id,
      minWireVersion: 0,
      maxWireVersion: 21,
      readOnly: false,
      ok: 1,
    };
  },
};

const HELLO_NAMES = new Set([hello.name, ...(hello.aliases ?? [])]);

/** Whether a command name (as sent or as its command) is hello's. */
export function isHelloName(name: string): boolean {
  return HELLO_NAMES.has(name);
}

/** Gives the connection the appName its first hello announces (see the header). */
export function noteAppName(name: string, command: Document, connection: ConnectionInfo): void {
  if (connection.appName !== undefined || !isHelloName(name)) return;
  const client = command.client;
  if (
    isPlainDocument(client) &&
    isPlainDocument(client.application) &&
    typeof client.application.name === 'string'
  )
    connection.appName = client.application.name;
}
