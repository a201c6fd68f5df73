/** `endSessions`: the transactions in progress of the ended sessions are aborted. */
import { CommandDefinition } from './context';
import { badValue } from '../engine/errors';
import { sessionKeyOf } from '../state/transactions';

export const endSessions: CommandDefinition = {
  name: 'endSessions',
  fields: [],
  run(command, { server }) {
    if (!Array.isArray(command.endSessions)) throw badValue('endSessions takes an array of lsids');
    server.transactions.endSessions(command.endSessions.map(sessionKeyOf));
    return { ok: 1 };
  },
};
