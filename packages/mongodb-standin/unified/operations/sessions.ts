/**
 * Session operations and the test runner's session assertions: endSession, getSnapshotTime,
 * assertSessionDirty/NotDirty, assertSame/DifferentLsidOnLastTwoCommands.
 */
import { BSON, ClientSession, Document } from 'mongodb';
import { Mismatch } from '../mismatch';
import { OperationContext, OperationTable } from './table';

function lastTwoLsids(client: string, context: OperationContext): [Document, Document] {
  const started = (context.entities.events.get(client) ?? []).filter(
    (e) => e.kind === 'commandStartedEvent',
  );
  if (started.length < 2) throw new Mismatch(`${client} observed fewer than two commands`);
  const [a, b] = started.slice(-2).map((e) => e.event.command.lsid as Document);
  return [a, b];
}

const sameLsid = (a: Document, b: Document) =>
  Buffer.from(BSON.serialize(a)).equals(BSON.serialize(b));

function isDirty(session: ClientSession): boolean {
  return (
    (session as unknown as { serverSession?: { isDirty: boolean } }).serverSession?.isDirty ?? false
  );
}

function dirtiness(expected: boolean) {
  return async (args: Document) => {
    if (isDirty(args.session as ClientSession) !== expected)
      throw new Mismatch(`the session is ${expected ? 'not ' : ''}dirty`);
    return undefined;
  };
}

export const sessionOperations: OperationTable = {
  'session.endSession': async (_args, target) => (target as ClientSession).endSession(),
  'session.getSnapshotTime': async (_args, target) =>
    (target as unknown as { snapshotTime?: unknown }).snapshotTime,
  'testRunner.assertSessionDirty': dirtiness(true),
  'testRunner.assertSessionNotDirty': dirtiness(false),
  'testRunner.assertSameLsidOnLastTwoCommands': async (args, _t, context) => {
    const [a, b] = lastTwoLsids(args.client, context);
    if (!sameLsid(a, b)) throw new Mismatch('the last two commands used different lsids');
    return undefined;
  },
  'testRunner.assertDifferentLsidOnLastTwoCommands': async (args, _t, context) => {
    const [a, b] = lastTwoLsids(args.client, context);
    if (sameLsid(a, b)) throw new Mismatch('the last two commands used the same lsid');
    return undefined;
  },
};
