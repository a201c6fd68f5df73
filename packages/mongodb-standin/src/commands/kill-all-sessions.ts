/**
 * `killAllSessions` and `killAllSessionsByPattern`, as a mongod without access control runs
 * them: every session belongs to the one anonymous user, so `killAllSessions: []` and the
 * pattern `{}` (or no pattern) kill every session, and `{ lsid }` kills that one (its `uid`,
 * when given, is the one mongod gives a session without a user: SHA-256 of nothing). Killing a
 * session aborts its transaction in progress, at once, releasing its locks (a write waiting
 * for them runs); the session lives on, and a later command of the killed transaction is
 * NoSuchTransaction, as after killSessions. The unified test format's runners send
 * `killAllSessions: []` before each test so that no test's open transaction holds up the next.
 *
 * What names users or roles (`killAllSessions: [{ user, db }]`, the patterns `uid`, `users`,
 * `roles`) is refused by name: the stand-in has no users. Cursors opened in a killed session
 * stay open (the stand-in does not keep a cursor's session).
 */
import { createHash } from 'node:crypto';
import { Binary } from 'bson';
import { CommandDefinition } from './context';
import { badValue, unsupported } from '../engine/errors';
import { Document, isPlainDocument } from '../engine/values';
import { sessionKeyOf } from '../state/transactions';

/** mongod's uid of a session without a user (no access control): SHA-256 of nothing. */
const NO_USER_UID = createHash('sha256').digest('hex');

function isNoUser(uid: unknown): boolean {
  return uid instanceof Binary && Buffer.from(uid.buffer).toString('hex') === NO_USER_UID;
}

function listOf(command: Document, name: string): Document[] {
  const list = command[name];
  if (!Array.isArray(list) || !list.every(isPlainDocument))
    throw badValue(`${name} takes an array of documents`);
  return list as Document[];
}

export const killAllSessions: CommandDefinition = {
  name: 'killAllSessions',
  fields: [],
  run(command, { server }) {
    if (listOf(command, 'killAllSessions').length > 0)
      throw unsupported('killAllSessions of named users (it has no users: [] kills every session)');
    server.transactions.abortAll();
    return { ok: 1 };
  },
};

export const killAllSessionsByPattern: CommandDefinition = {
  name: 'killAllSessionsByPattern',
  fields: [],
  run(command, { server }) {
    const patterns = listOf(command, 'killAllSessionsByPattern');
    const unsupportedField = patterns
      .flatMap((pattern) => Object.keys(pattern))
      .find((field) => field !== 'lsid');
    if (unsupportedField !== undefined)
      throw unsupported(`killAllSessionsByPattern by '${unsupportedField}' (only lsid, or {})`);
    if (patterns.length === 0 || patterns.some((pattern) => pattern.lsid === undefined)) {
      server.transactions.abortAll();
    } else {
      for (const { lsid } of patterns) {
        const owned = isPlainDocument(lsid) && (lsid.uid === undefined || isNoUser(lsid.uid));
        if (owned) server.transactions.abort(sessionKeyOf({ id: lsid.id }));
      }
    }
    return { ok: 1 };
  },
};
