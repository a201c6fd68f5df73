/**
 * `getParameter`: answers the few parameters tools ask for; `'*'` or anything else is refused
 * by name rather than answered with invented values.
 */
import { CommandDefinition } from './context';
import { unsupported } from './engine/errors';

const PARAMETERS: Record<string, unknown> = {
  featureCompatibilityVersion: { version: '7.0' },
  enableTestCommands: true,
  authenticationMechanisms: [],
};

export const getParameter: CommandDefinition = {
  name: 'getParameter',
  fields: Object.keys(PARAMETERS),
  run(command) {
    const reply: Record<string, unknown> = {};
    for (const name of Object.keys(command)) {
      if (name === 'getParameter' || name.startsWith('$') || name === 'lsid') continue;
      if (!(name in PARAMETERS)) throw unsupported(`getParameter ${name}`);
      reply[name] = PARAMETERS[name];
    }
    return { ...reply, ok: 1 };
  },
};
