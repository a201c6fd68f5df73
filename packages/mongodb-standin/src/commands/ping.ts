/** `ping`: liveness; always ok. */
import { CommandDefinition } from './context';

export const ping: CommandDefinition = { name: 'ping', fields: [], run: () => ({ ok: 1 }) };
