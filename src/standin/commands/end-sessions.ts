/**
 * `endSessions`: forgets the named sessions' retryable-write records
 * (state/retryable-writes.ts) and aborts their transactions in progress.
 */
import { CommandDefinition } from './context';
import { badValue } from '../engine/errors';
import { Document, isPlainDocument } from '../engine/values';
import { sessionKeyOf } from '../state/transactions';

export const endSessions: CommandDefinition = {
  name: 'endSessions',
  fields: [],
  run(command, { server }) {
    const lsids = command.endSessions;
    if (!Array.isArray(lsids) || !lsids.every(isPlainDocument))
      throw badValue('endSessions takes an array of session ids');
    server.retryableWrites.end(lsids as Document[]);
    server.transactions.endSessions(lsids.map(sessionKeyOf));
    return { ok: 1 };
  },
};
