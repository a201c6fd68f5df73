/**
 * `replSetGetStatus` (admin): the one-member replica set's status (state/replica-set.ts), as
 * monitoring tools and mongosh's `rs.status()` read it. A standalone answers
 * NoReplicationEnabled (76), as mongod without --replSet does.
 */
import { CommandDefinition } from './context';
import { CommandError, ErrorCode } from '../engine/errors';

export const replSetGetStatus: CommandDefinition = {
  name: 'replSetGetStatus',
  fields: [],
  run(_command, { server, database }) {
    if (database !== 'admin')
      throw new CommandError(
        ErrorCode.Unauthorized,
        'replSetGetStatus may only be run against the admin database.',
      );
    if (!server.replica)
      throw new CommandError(ErrorCode.NoReplicationEnabled, 'not running with --replSet');
    return { ...server.replica.statusFields(server.startedAt), ok: 1 };
  },
};
