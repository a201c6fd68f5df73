/** `dbStats`: the database's document and index sizes (engine/stats.ts says what they measure). */
import { CommandDefinition } from './context';
import { databaseStats } from '../engine/stats';
import { scaleOf } from './scale';

export const dbStats: CommandDefinition = {
  name: 'dbStats',
  aliases: ['dbstats'],
  fields: ['scale', 'freeStorage'],
  run(command, { server, database }) {
    const stats = databaseStats(database, server.store.collections(database), scaleOf(command));
    return { ...stats, ok: 1 };
  },
};
