/**
 * `getMore`: the next batch of an open cursor (CursorNotFound, 43, when it is gone); a change
 * stream's waits for changes when it has none (change-stream.ts). The
 * failGetMoreAfterCursorCheckout fail point fails it once it holds its cursor, closing it.
 */
import { Long } from 'bson';
import { collectionNameOf, CommandDefinition, cursorReply, optionalNumber } from './context';
import { badValue } from '../engine/errors';
import { changeStreamGetMore, getMoreFailure } from './change-stream';

export const getMore: CommandDefinition = {
  name: 'getMore',
  fields: ['collection', 'batchSize'],
  run(command, context) {
    const { server, database } = context;
    if (!(command.getMore instanceof Long)) throw badValue('getMore takes an Int64 cursor id');
    const namespace = `${database}.${collectionNameOf(command, 'collection')}`;
    const stream = server.cursors.streamOf(command.getMore, namespace);
    const failure = server.failPoints.takeGetMoreFailure();
    if (failure !== null) {
      server.cursors.closeCursor(command.getMore);
      throw getMoreFailure(failure, stream !== undefined);
    }
    if (stream) return changeStreamGetMore(command, context, stream, command.getMore, namespace);
    const { batch, id } = server.cursors.getMore(
      command.getMore,
      namespace,
      optionalNumber(command, 'batchSize'),
    );
    return cursorReply(namespace, batch, id, false);
  },
};
