/**
 * `endSessions`: forgets the named sessions' retryable-write records
 * (state/retryable-writes.ts); sessions hold no other server state here.
 */
import { CommandDefinition } from './context';
import { badValue } from '../engine/errors';
import { Document, isPlainDocument } from '../engine/values';

export const endSessions: CommandDefinition = {
  name: 'endSessions',
  fields: [],
  run(command, { server }) {
    const lsids = command.endSessions;
    if (!Array.isArray(lsids) || !lsids.every(isPlainDocument))
      throw badValue('endSessions takes an array of session ids');
    server.retryableWrites.end(lsids as Document[]);
    return { ok: 1 };
  },
};
