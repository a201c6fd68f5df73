/**
 * The `$currentOp` stage (`db.currentOp()` in mongosh): the operations running now. Commands run
 * one at a time and to the end, so the only operation in progress is the `$currentOp`
 * aggregate itself; that is what it reports, with the asking connection's id and appName. Idle
 * connections, cursors and sessions are not tracked one by one, so asking for them is refused.
 */
import { CommandError, ErrorCode, unsupported } from '../engine/errors';
import { isTruthy } from '../engine/expressions';
import { Document, isPlainDocument } from '../engine/values';
import { CommandContext } from './context';

const OPTIONS = new Set([
  'allUsers',
  'idleConnections',
  'idleCursors',
  'idleSessions',
  'localOps',
  'truncateOps',
  'backtrace',
]);
const UNTRACKED = ['idleConnections', 'idleCursors'];

export function currentOpDocuments(
  command: Document,
  context: CommandContext,
  spec: unknown,
): Document[] {
  if (context.database !== 'admin') {
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      "$currentOp must be run against the 'admin' database with {aggregate: 1}",
    );
  }
  if (!isPlainDocument(spec))
    throw new CommandError(
      ErrorCode.FailedToParse,
      '$currentOp options must be specified in an object',
    );
  for (const option of Object.keys(spec)) {
    if (!OPTIONS.has(option)) throw unsupported(`the $currentOp option ${option}`);
    if (UNTRACKED.includes(option) && isTruthy(spec[option]))
      throw unsupported(`$currentOp ${option}: true (the stand-in does not track them)`);
  }
  const { connection, server } = context;
  const { $db: _db, lsid: _lsid, ...sent } = command;
  return [
    {
      type: 'op',
      host: `127.0.0.1:${server.port}`,
      desc: `conn${connection.id}`,
      connectionId: connection.id,
      ...(connection.appName ? { appName: connection.appName } : {}),
      active: true,
      currentOpTime: new Date().toISOString(),
      secs_running: 0,
      microsecs_running: 0,
      op: 'command',
      ns: 'admin.$cmd.aggregate',
      command: sent,
      numYields: 0,
      waitingForLock: false,
    },
  ];
}
