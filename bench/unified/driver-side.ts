/**
 * Where driver 7.9 sends something other than the spec's expected command events, in a way the
 * Node driver's own unified runner (node-mongodb-native test/tools/unified-spec-runner) does not
 * flag. A test that differs only by these is counted `driver-side`: neither a pass of the server
 * nor wrong. Each entry is narrow: it names the command, the field and the exact value the driver
 * adds, and the rest of the command is still matched as the format says.
 *
 * - `wtimeout: 10000` in commitTransaction's and abortTransaction's writeConcern where the test
 *   expects a writeConcern without it. Driver 7.9 (lib/sessions.js, commitTransaction and
 *   abortTransaction) applies `{ wtimeoutMS: 10000, w: 'majority', ...wc }` whenever the
 *   transaction has a write concern, also on the first commit, where the transactions spec adds
 *   it only to a retried commit. The server does not choose what the driver sends, so a real
 *   mongod gets the same verdict. The Node runner matches nested documents with extra keys
 *   allowed (match.ts `resultCheck`, checkExtraKeys false), so it never sees the field.
 */
import { Document } from 'mongodb';

const DRIVER_WTIMEOUT_MS = 10_000;
const TRANSACTION_ENDS = new Set(['commitTransaction', 'abortTransaction']);

function isDocument(value: unknown): value is Document {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The command to match against `expected`, without what the driver added on its own, and what
 * was taken out (empty when nothing was).
 */
export function withoutDriverAdditions(
  commandName: string,
  expected: Document,
  command: Document,
): { command: Document; removed: string[] } {
  const wanted = expected.writeConcern;
  const sent = command.writeConcern;
  const expectsPlainConcern =
    isDocument(wanted) && !Object.keys(wanted).some((key) => key.startsWith('$$'));
  if (
    !TRANSACTION_ENDS.has(commandName) ||
    !expectsPlainConcern ||
    'wtimeout' in wanted ||
    !isDocument(sent) ||
    Number(sent.wtimeout) !== DRIVER_WTIMEOUT_MS
  )
    return { command, removed: [] };
  const { wtimeout: _added, ...concern } = sent;
  return {
    command: { ...command, writeConcern: concern },
    removed: [`driver 7.9 added writeConcern.wtimeout: 10000 to ${commandName}`],
  };
}
