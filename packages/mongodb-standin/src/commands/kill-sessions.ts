/**
 * `killSessions`: aborts the named sessions' transactions in progress at once, as mongod kills
 * their operations and transactions. Unlike `endSessions` the sessions live on: their
 * retryable-write records stay, and a later command of the aborted transaction gets
 * NoSuchTransaction. An empty list means "every session of this user" on mongod; the stand-in
 * refuses it by name rather than kill what nobody named.
 */
import { CommandDefinition } from './context';
import { badValue } from '../engine/errors';
import { sessionKeyOf } from '../state/transactions';
import { sessionIdsOf } from './end-sessions';

export const killSessions: CommandDefinition = {
  name: 'killSessions',
  fields: [],
  run(command, { server }) {
    const lsids = sessionIdsOf(command, 'killSessions');
    if (lsids.length === 0)
      throw badValue(
        'killSessions with no session ids (every session) is not supported by the stand-in',
      );
    for (const lsid of lsids) server.transactions.abort(sessionKeyOf(lsid));
    return { ok: 1 };
  },
};
