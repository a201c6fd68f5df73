/**
 * `getParameter`: answers the few parameters tools ask for, and the settable ones
 * (set-parameter.ts) with their current value; `'*'` or anything else is refused by name rather
 * than answered with invented values.
 */
import { CommandDefinition, ServerState } from './context';
import { CommandError, ErrorCode, unsupported } from '../engine/errors';
import { isPlainDocument } from '../engine/values';
import { SETTABLE } from './set-parameter';

const PARAMETERS: Record<string, (server: ServerState) => unknown> = {
  featureCompatibilityVersion: () => ({ version: '7.0' }),
  enableTestCommands: () => true,
  authenticationMechanisms: () => [],
  ...Object.fromEntries(
    Object.entries(SETTABLE).map(([name, parameter]) => [name, parameter.get] as const),
  ),
};

export const getParameter: CommandDefinition = {
  name: 'getParameter',
  fields: Object.keys(PARAMETERS),
  run(command, { server }) {
    if (command.getParameter === '*' || isPlainDocument(command.getParameter)) {
      throw unsupported("getParameter '*' and getParameter with options");
    }
    const reply: Record<string, unknown> = {};
    for (const name of Object.keys(PARAMETERS))
      if (name in command) reply[name] = PARAMETERS[name](server);
    if (Object.keys(reply).length === 0)
      throw new CommandError(ErrorCode.InvalidOptions, 'no option found to get');
    return { ...reply, ok: 1 };
  },
};
