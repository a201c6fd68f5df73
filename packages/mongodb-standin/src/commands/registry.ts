/**
 * The command table and dispatch. A database name mongod refuses is InvalidNamespace (73) for
 * any command (engine/namespaces.ts). The command name is the first key of the command document;
 * an unknown name is CommandNotFound (59), and a field the handler does not declare (beyond the
 * generic session/concern/API fields every command accepts) is BadValue (2) naming the field, so
 * nothing the stand-in does not implement is silently ignored. Replies for failures carry
 * MongoDB's code and codeName.
 */
import { commandNameOf } from './command-names';
import { aggregate } from './aggregate';
import { buildInfo } from './build-info';
import { configureFailPoint } from './configure-fail-point';
import { CommandContext, CommandDefinition } from './context';
import { collMod } from './coll-mod';
import { collStats } from './coll-stats';
import { count } from './count';
import { createIndexes } from './create-indexes';
import { dbStats } from './db-stats';
import { create } from './create';
import { deleteCommand } from './delete';
import { distinct } from './distinct';
import { dropDatabase } from './drop-database';
import { dropIndexes } from './drop-indexes';
import { drop } from './drop';
import { endSessions } from './end-sessions';
import { killSessions } from './kill-sessions';
import { killAllSessions, killAllSessionsByPattern } from './kill-all-sessions';
import { explainCommand } from './explain';
import { CommandError, ErrorCode, unsupported } from '../engine/errors';
import { assertValidDatabaseName } from '../engine/namespaces';
import { Document, isPlainDocument } from '../engine/values';
import { findAndModify } from './find-and-modify';
import { find } from './find';
import { getMore } from './get-more';
import { getParameter } from './get-parameter';
import { setParameter } from './set-parameter';
import { hello } from './hello';
import { insert } from './insert';
import { killCursors } from './kill-cursors';
import { listCollections } from './list-collections';
import { listDatabases } from './list-databases';
import { listIndexes } from './list-indexes';
import { ping } from './ping';
import { renameCollection } from './rename-collection';
import { replSetGetStatus } from './repl-set-get-status';
import { serverStatus } from './server-status';
import { update } from './update';
import {
  abortTransaction,
  commitTransaction,
  isTransactionCommand,
  runInTransaction,
} from './transactions';

const DEFINITIONS: CommandDefinition[] = [
  hello,
  ping,
  buildInfo,
  getParameter,
  setParameter,
  endSessions,
  killSessions,
  killAllSessions,
  killAllSessionsByPattern,
  insert,
  find,
  getMore,
  killCursors,
  findAndModify,
  update,
  deleteCommand,
  aggregate,
  count,
  createIndexes,
  listIndexes,
  dropIndexes,
  create,
  collMod,
  renameCollection,
  drop,
  dropDatabase,
  listCollections,
  listDatabases,
  configureFailPoint,
  distinct,
  dbStats,
  collStats,
  explainCommand(definitionFor),
  serverStatus,
  replSetGetStatus,
  commitTransaction,
  abortTransaction,
];

/** Fields any command may carry: routing, sessions, concerns, limits, API versioning. */
const GENERIC_FIELDS = new Set([
  '$db',
  '$readPreference',
  '$clusterTime',
  'lsid',
  'txnNumber',
  'autocommit',
  'startTransaction',
  'writeConcern',
  'readConcern',
  'maxTimeMS',
  'comment',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
  'collation',
]);

/** Commands in Stable API version 1 with no option outside it: served under `apiStrict`. */
const STRICT_MODE_COMMANDS = new Set(['hello', 'ping', 'endSessions']);

/**
 * `snapshot` reaches a command only through the server's snapshot reads (state/snapshot-reads.ts),
 * which run it against the data as of the snapshot's time; `linearizable` on the one member of
 * the set is `majority` (every acknowledged write is applied), for the reads mongod allows it on.
 */
const READ_CONCERN_LEVELS = new Set(['local', 'majority', 'available', 'snapshot', 'linearizable']);
const LINEARIZABLE_READS = new Set(['find', 'aggregate', 'count', 'distinct']);

const TABLE = new Map<string, CommandDefinition>();
/** per command, the fields it declares (absent for 'any') */
const ALLOWED_FIELDS = new Map<CommandDefinition, ReadonlySet<string>>();
for (const definition of DEFINITIONS) {
  if (definition.fields !== 'any') ALLOWED_FIELDS.set(definition, new Set(definition.fields));
  for (const name of [definition.name, ...(definition.aliases ?? [])]) TABLE.set(name, definition);
}

function refuseUnsupportedGenerics(command: Document, name: string): void {
  if (command.collation !== undefined) throw unsupported('collations');
  // Stable API: version 1 changes nothing the stand-in does, and nothing in it is deprecated, so
  // deprecation errors never fire. Strict mode refuses commands, options, stages and operators
  // outside version 1 (distinct, for one), a list the stand-in does not keep: a strict command is
  // refused rather than run as if strict were not asked for, except the few a strict client's
  // driver sends on its own, which are in version 1 whole (STRICT_MODE_COMMANDS).
  if (command.apiVersion !== undefined && command.apiVersion !== '1')
    throw unsupported(`apiVersion ${JSON.stringify(command.apiVersion)} (only "1")`);
  if (command.apiStrict === true && !STRICT_MODE_COMMANDS.has(name))
    throw unsupported(`apiStrict (the Stable API strict mode) for ${name}`);
  const readConcern = command.readConcern;
  if (isTransactionCommand(command)) return; // commands/transactions.ts checks its levels
  if (!isPlainDocument(readConcern) || readConcern.level === undefined) return;
  const level = String(readConcern.level);
  if (!READ_CONCERN_LEVELS.has(level)) throw unsupported(`readConcern level '${level}'`);
  if (level === 'linearizable' && !LINEARIZABLE_READS.has(name))
    throw new CommandError(
      ErrorCode.InvalidOptions,
      `Command ${name} does not support { readConcern: { level: "linearizable" } }`,
    );
}

/**
 * The definition that runs `command`, after refusing what it does not implement: an unknown
 * name, undeclared fields, unsupported generic options. Also used by explain for
 * the command it explains.
 */
export function definitionFor(command: Document): CommandDefinition {
  const name = commandNameOf(command);
  const definition = TABLE.get(name);
  if (!definition) {
    throw new CommandError(
      ErrorCode.CommandNotFound,
      `no such command: '${name}' (the MongoDB stand-in does not implement it)`,
    );
  }
  const allowed = ALLOWED_FIELDS.get(definition);
  if (allowed) {
    for (const field of Object.keys(command).slice(1)) {
      if (!GENERIC_FIELDS.has(field) && !allowed.has(field))
        throw unsupported(`the field '${field}' of ${name}`);
    }
  }
  refuseUnsupportedGenerics(command, definition.name);
  return definition;
}

/**
 * Runs a command and returns the reply (ok: 1 or MongoDB's error shape); synchronously, except a
 * change stream's getMore that waits for changes. Anything thrown that is not a CommandError
 * propagates to the server: a TransactionLockWait (the command must wait for a transaction,
 * engine/concurrency.ts) or a stand-in bug to log.
 */
export function runCommand(
  command: Document,
  context: CommandContext,
): Document | Promise<Document> {
  const asReply = (error: unknown) => {
    if (error instanceof CommandError) return errorReply(error);
    throw error;
  };
  try {
    assertValidDatabaseName(context.database);
    const definition = definitionFor(command);
    const reply = isTransactionCommand(command)
      ? runInTransaction(definition, command, context)
      : definition.run(command, context);
    return reply instanceof Promise ? reply.catch(asReply) : reply;
  } catch (error) {
    return asReply(error);
  }
}

export function errorReply(error: CommandError): Document {
  return {
    ok: 0,
    errmsg: error.message,
    code: error.code,
    codeName: error.codeName,
    ...error.extra,
  };
}
