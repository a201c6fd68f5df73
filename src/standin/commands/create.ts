/**
 * `create`: an empty collection; NamespaceExists (48) when it exists. Options that change
 * behaviour (capped, validators, views, timeseries, clustered, collation) are refused.
 */
import { collectionNameOf, CommandDefinition } from './context';
import { CommandError, ErrorCode } from '../engine/errors';

export const create: CommandDefinition = {
  name: 'create',
  fields: [],
  run(command, { server, database }) {
    const name = collectionNameOf(command, 'create');
    if (server.store.get(database, name))
      throw new CommandError(
        ErrorCode.NamespaceExists,
        `Collection ${database}.${name} already exists.`,
      );
    server.store.obtain(database, name);
    return { ok: 1 };
  },
};
