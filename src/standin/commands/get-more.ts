/** `getMore`: the next batch of an open cursor (CursorNotFound, 43, when it is gone). */
import { Long } from 'bson';
import { collectionNameOf, CommandDefinition, cursorReply, optionalNumber } from './context';
import { badValue } from '../engine/errors';

export const getMore: CommandDefinition = {
  name: 'getMore',
  fields: ['collection', 'batchSize'],
  run(command, { server, database }) {
    if (!(command.getMore instanceof Long)) throw badValue('getMore takes an Int64 cursor id');
    const namespace = `${database}.${collectionNameOf(command, 'collection')}`;
    const { batch, id } = server.cursors.getMore(
      command.getMore,
      namespace,
      optionalNumber(command, 'batchSize'),
    );
    return cursorReply(namespace, batch, id, false);
  },
};
