/** `listDatabases` (admin): databases holding at least one collection; sizes are not tracked and reported as 0. */
import { CommandDefinition } from './context';
import { CommandError, ErrorCode } from '../engine/errors';
import { compileFilter } from '../engine/matcher';
import { Document, isPlainDocument } from '../engine/values';

export const listDatabases: CommandDefinition = {
  name: 'listDatabases',
  fields: ['filter', 'nameOnly', 'authorizedDatabases'],
  run(command, { server, database }) {
    if (database !== 'admin')
      throw new CommandError(
        ErrorCode.Unauthorized,
        'listDatabases may only be run against the admin database.',
      );
    const matches = compileFilter(isPlainDocument(command.filter) ? command.filter : undefined);
    const databases: Document[] = server.store
      .databaseNames()
      .map((name) => (command.nameOnly === true ? { name } : { name, sizeOnDisk: 0, empty: false }))
      .filter(matches);
    return { databases, totalSize: 0, ok: 1 };
  },
};
