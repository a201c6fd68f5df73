/**
 * `setParameter` on admin, as mongod runs it, for the parameters the stand-in has (SETTABLE):
 * `transactionLifetimeLimitSeconds` (an integer of at least 1; transactions started from then
 * on are aborted after that long, state/transactions.ts) and `ttlMonitorSleepSecs` (an integer
 * above 0; the period of TTL passes, state/ttl-monitor.ts). The reply names the value the first
 * one replaced (`was`). Any other parameter is refused by name (the registry refuses undeclared
 * fields). getParameter reads the same table.
 */
import { CommandDefinition, ServerState } from './context';
import { badValue, CommandError, ErrorCode } from '../engine/errors';
import { isNumeric, numberOf } from '../engine/values';

interface SettableParameter {
  /** the smallest value taken, and how mongod's validator says so */
  min: number;
  refusal: string;
  get(server: ServerState): number;
  set(server: ServerState, value: number): void;
}

export const SETTABLE: Record<string, SettableParameter> = {
  transactionLifetimeLimitSeconds: {
    min: 1,
    refusal: 'is not greater than or equal to 1',
    get: (server) => server.transactions.lifetimeMs / 1000,
    set: (server, seconds) => (server.transactions.lifetimeMs = seconds * 1000),
  },
  ttlMonitorSleepSecs: {
    min: 1,
    refusal: 'is not greater than 0',
    get: (server) => server.ttl.sleepSecs,
    set: (server, seconds) => (server.ttl.sleepSecs = seconds),
  },
};

export const setParameter: CommandDefinition = {
  name: 'setParameter',
  fields: Object.keys(SETTABLE),
  run(command, { server, database }) {
    if (database !== 'admin')
      throw new CommandError(
        ErrorCode.Unauthorized,
        'setParameter may only be run against the admin database.',
      );
    const named = Object.keys(SETTABLE).filter((name) => command[name] !== undefined);
    if (named.length === 0) throw badValue('no option found to set, use help:true to see options');
    for (const name of named) {
      const value = command[name];
      const number = isNumeric(value) ? numberOf(value) : NaN;
      if (!Number.isInteger(number) || number < SETTABLE[name].min)
        throw badValue(
          `Invalid value for parameter ${name}: ${String(value)} ${SETTABLE[name].refusal}`,
        );
    }
    const was = SETTABLE[named[0]].get(server);
    for (const name of named) SETTABLE[name].set(server, numberOf(command[name]));
    return { was, ok: 1 };
  },
};
