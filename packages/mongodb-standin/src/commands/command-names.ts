/**
 * Command names as mongod resolves them: a command sent or named by an alias (`ismaster`,
 * `findandmodify`) is the command itself. failCommand matches this way both sides: the name a
 * command was sent under, and each name in `data.failCommands` (mongod's `Command::hasAlias`),
 * so `["ismaster"]` fails a handshake sent as `isMaster` and the other way round.
 */
import { Document } from '../engine/values';

/** mongod's aliases and the command each stands for (`hello` and `isMaster` are distinct commands). */
const ALIAS_OF: Record<string, string> = {
  ismaster: 'isMaster',
  findandmodify: 'findAndModify',
  buildinfo: 'buildInfo',
  deleteIndexes: 'dropIndexes',
  dbstats: 'dbStats',
  collstats: 'collStats',
  serverstatus: 'serverStatus',
};

/** The command's name as sent (first key of the document). */
export function commandNameOf(command: Document): string {
  return Object.keys(command)[0] ?? '';
}

/** The command a name stands for: itself, or the command it is an alias of. */
export function canonicalName(name: string): string {
  return ALIAS_OF[name] ?? name;
}

/** The name failCommand matches against: mongod's command name, never the alias that was sent. */
export function failPointNameOf(command: Document): string {
  return canonicalName(commandNameOf(command));
}
