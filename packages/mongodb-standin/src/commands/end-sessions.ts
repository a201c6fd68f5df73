/**
 * `endSessions`: forgets the named sessions' retryable-write records
 * (state/retryable-writes.ts) and aborts their transactions in progress.
 */
import { CommandDefinition } from './context';
import { badValue } from '../engine/errors';
import { Document, isPlainDocument } from '../engine/values';
import { sessionKeyOf } from '../state/transactions';

/** The session ids a session command names: an array of `lsid` documents, or BadValue. */
export function sessionIdsOf(command: Document, name: string): Document[] {
  const lsids = command[name];
  if (!Array.isArray(lsids) || !lsids.every(isPlainDocument))
    throw badValue(`${name} takes an array of session ids`);
  return lsids as Document[];
}

export const endSessions: CommandDefinition = {
  name: 'endSessions',
  fields: [],
  run(command, { server }) {
    const lsids = sessionIdsOf(command, 'endSessions');
    server.retryableWrites.end(lsids);
    server.transactions.endSessions(lsids.map(sessionKeyOf));
    return { ok: 1 };
  },
};
