/** `dropDatabase`: removes every collection of the command's database. */
import { CommandDefinition } from './context';

export const dropDatabase: CommandDefinition = {
  name: 'dropDatabase',
  fields: [],
  run(_command, { server, database }) {
    server.store.dropDatabase(database);
    return { ok: 1 };
  },
};
