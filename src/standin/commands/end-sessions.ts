/** `endSessions`: sessions hold no server state here (no transactions), so there is nothing to end. */
import { CommandDefinition } from './context';

export const endSessions: CommandDefinition = {
  name: 'endSessions',
  fields: [],
  run: () => ({ ok: 1 }),
};
