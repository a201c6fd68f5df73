/**
 * `listDatabases` (admin): databases holding at least one collection, with their sizes as
 * engine/stats.ts measures them (documents and index keys held, in bytes).
 */
import { CommandDefinition } from './context';
import { CommandError, ErrorCode } from '../engine/errors';
import { compileFilter } from '../engine/matcher';
import { databaseStats } from '../engine/stats';
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
    const entries: Document[] = server.store.databaseNames().map((name) => {
      if (command.nameOnly === true) return { name };
      const stats = databaseStats(name, server.store.collections(name), 1);
      return { name, sizeOnDisk: stats.totalSize, empty: stats.objects === 0 };
    });
    const databases = entries.filter(matches);
    if (command.nameOnly === true) return { databases, ok: 1 };
    const totalSize = databases.reduce((sum, entry) => sum + (entry.sizeOnDisk as number), 0);
    return { databases, totalSize, totalSizeMb: Math.floor(totalSize / 2 ** 20), ok: 1 };
  },
};
