/**
 * `create`: an empty collection; NamespaceExists (48) when it exists. `changeStreamPreAndPostImages`
 * is kept (coll-mod.ts); options that change behaviour (capped, validators, views, timeseries,
 * clustered, collation) are refused.
 */
import { collectionNameOf, CommandDefinition } from './context';
import { CommandError, ErrorCode } from '../engine/errors';
import { preAndPostImagesOption } from './coll-mod';

export const create: CommandDefinition = {
  name: 'create',
  fields: ['changeStreamPreAndPostImages'],
  run(command, { server, database }) {
    const name = collectionNameOf(command, 'create');
    if (server.store.get(database, name))
      throw new CommandError(
        ErrorCode.NamespaceExists,
        `Collection ${database}.${name} already exists.`,
      );
    const images =
      command.changeStreamPreAndPostImages === undefined
        ? false
        : preAndPostImagesOption(command.changeStreamPreAndPostImages);
    const { collection } = server.store.obtain(database, name);
    if (images) collection.setPreAndPostImages(true);
    return { ok: 1 };
  },
};
