/**
 * `setParameter` on admin, as mongod runs it, for the one parameter the stand-in has:
 * `transactionLifetimeLimitSeconds` (an integer of at least 1; transactions started from then
 * on are aborted after that long, state/transactions.ts). The reply names the value it replaced
 * (`was`). Any other parameter is refused by name (the registry refuses undeclared fields).
 */
import { CommandDefinition } from './context';
import { badValue, CommandError, ErrorCode } from '../engine/errors';
import { isNumeric, numberOf } from '../engine/values';

export const setParameter: CommandDefinition = {
  name: 'setParameter',
  fields: ['transactionLifetimeLimitSeconds'],
  run(command, { server, database }) {
    if (database !== 'admin')
      throw new CommandError(
        ErrorCode.Unauthorized,
        'setParameter may only be run against the admin database.',
      );
    const value = command.transactionLifetimeLimitSeconds;
    if (value === undefined) throw badValue('no option found to set, use help:true to see options');
    const seconds = isNumeric(value) ? numberOf(value) : NaN;
    if (!Number.isInteger(seconds) || seconds < 1)
      throw badValue(
        `Invalid value for parameter transactionLifetimeLimitSeconds: ${String(value)} is not greater than or equal to 1`,
      );
    const was = server.transactions.lifetimeMs / 1000;
    server.transactions.lifetimeMs = seconds * 1000;
    return { was, ok: 1 };
  },
};
