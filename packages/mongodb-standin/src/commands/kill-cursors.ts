/**
 * `killCursors`: closes cursors; reports killed and unknown ids as mongod does. A change
 * stream's getMore waiting on a killed cursor ends at once (CursorKilled), as mongod interrupts it.
 */
import { Long } from 'bson';
import { CommandDefinition } from './context';
import { badValue } from '../engine/errors';

export const killCursors: CommandDefinition = {
  name: 'killCursors',
  fields: ['cursors'],
  run(command, { server }) {
    const ids = command.cursors;
    if (!Array.isArray(ids) || !ids.every((id) => id instanceof Long)) {
      throw badValue('killCursors.cursors must be an array of Int64 ids');
    }
    const { killed, notFound } = server.cursors.kill(ids as Long[]);
    if (killed.length > 0) server.changes.wakeAll();
    return {
      cursorsKilled: killed,
      cursorsNotFound: notFound,
      cursorsAlive: [],
      cursorsUnknown: [],
      ok: 1,
    };
  },
};
