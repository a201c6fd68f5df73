/** `configureFailPoint` (admin): sets or clears the failCommand fail point (see fail-points.ts). */
import { CommandDefinition } from './context';
import { CommandError, ErrorCode } from '../engine/errors';

export const configureFailPoint: CommandDefinition = {
  name: 'configureFailPoint',
  fields: ['mode', 'data'],
  run(command, { server, database }) {
    if (database !== 'admin')
      throw new CommandError(
        ErrorCode.Unauthorized,
        'configureFailPoint may only be run against the admin database.',
      );
    return { count: server.failPoints.configure(command), ok: 1 };
  },
};
