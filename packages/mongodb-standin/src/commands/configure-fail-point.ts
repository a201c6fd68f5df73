/**
 * `configureFailPoint` (admin): sets or clears the failCommand fail point (see fail-points.ts),
 * with each of `data.failCommands` named as the command it stands for (command-names.ts).
 */
import { canonicalName } from './command-names';
import { CommandDefinition } from './context';
import { CommandError, ErrorCode } from '../engine/errors';
import { Document, isPlainDocument } from '../engine/values';

export const configureFailPoint: CommandDefinition = {
  name: 'configureFailPoint',
  fields: ['mode', 'data'],
  run(command, { server, database }) {
    if (database !== 'admin')
      throw new CommandError(
        ErrorCode.Unauthorized,
        'configureFailPoint may only be run against the admin database.',
      );
    return { count: server.failPoints.configure(withCanonicalNames(command)), ok: 1 };
  },
};

function withCanonicalNames(command: Document): Document {
  const data = command.data;
  if (!isPlainDocument(data) || !Array.isArray(data.failCommands)) return command;
  const failCommands = data.failCommands.map((name: unknown) =>
    typeof name === 'string' ? canonicalName(name) : name,
  );
  return { ...command, data: { ...data, failCommands } };
}
