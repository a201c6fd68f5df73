/**
 * `serverStatus`: the sections mongosh and Compass read, each with values the stand-in really
 * has: uptime, connections, network and opcounters since start (state/activity.ts), open
 * cursors, this process's resident memory in MB, and the storage engine (named as the
 * stand-in, never as WiredTiger). Sections it has nothing honest for (replication, WiredTiger, locks, asserts)
 * are absent rather than invented; asking for one by name is refused.
 */
import { badValue } from '../engine/errors';
import { isTruthy } from '../engine/expressions';
import { Document } from '../engine/values';
import { CommandDefinition } from './context';
import { MAX_BSON_OBJECT_SIZE } from './hello';

const SECTIONS = new Set([
  'connections',
  'network',
  'opcounters',
  'mem',
  'storageEngine',
  'metrics',
]);
/** Sections mongod has and the stand-in does not; `{ repl: 0 }` is fine, asking for one is not. */
const ABSENT_SECTIONS = ['repl', 'wiredTiger', 'locks', 'asserts', 'tcmalloc', 'sharding'];
const MB = 1024 * 1024;

export const serverStatus: CommandDefinition = {
  name: 'serverStatus',
  aliases: ['serverstatus'],
  fields: [...SECTIONS, ...ABSENT_SECTIONS],
  run(command, { server }) {
    for (const section of ABSENT_SECTIONS) {
      if (isTruthy(command[section]))
        throw badValue(`the MongoDB stand-in has no serverStatus section '${section}'`);
    }
    const now = Date.now();
    const uptimeMillis = now - server.startedAt.getTime();
    const sections: Document = {
      ...server.activity.report(),
      mem: { bits: 64, resident: Math.round(process.memoryUsage.rss() / MB), supported: true },
      storageEngine: { name: 'standin' },
      metrics: { cursor: { open: { total: server.cursors.usage.cursors } } },
    };
    for (const [name, wanted] of Object.entries(command)) {
      if (SECTIONS.has(name) && !isTruthy(wanted)) delete sections[name];
    }
    return {
      host: `127.0.0.1:${server.port}`,
      version: '7.0.0',
      process: 'standin',
      pid: process.pid,
      uptime: Math.floor(uptimeMillis / 1000),
      uptimeMillis,
      uptimeEstimate: Math.floor(uptimeMillis / 1000),
      localTime: new Date(now),
      maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
      ...sections,
      ok: 1,
    };
  },
};
