/**
 * `distinct`: the different values of `key` among documents matching `query`, as mongod gives
 * them: an array found at the path contributes its elements, arrays of documents fan out along
 * the path, missing fields contribute nothing, values equal under BSON comparison (1, 1.0,
 * Long 1) appear once, and the result is in BSON order.
 */
import { BSON } from 'bson';
import { collectionNameOf, CommandDefinition, optionalDocument } from './context';
import { CommandError, ErrorCode, LocationCode } from '../engine/errors';
import { compileFilter } from '../engine/matcher';
import { valuesAtPath } from '../engine/paths';
import { assertHintUsable, runQuery } from '../engine/query';
import { compareValues, indexKeyOf } from '../engine/values';
import { MAX_BSON_OBJECT_SIZE } from './hello';

export const distinct: CommandDefinition = {
  name: 'distinct',
  fields: ['key', 'query', 'hint'],
  run(command, { server, database }) {
    const name = collectionNameOf(command, 'distinct');
    if (typeof command.key !== 'string') {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        "BSON field 'distinct.key' is the wrong type, expected type 'string'",
      );
    }
    const segments = command.key.split('.');
    const collection = server.store.get(database, name);
    assertHintUsable(collection, command.hint);
    const query = optionalDocument(command, 'query');
    compileFilter(query); // an unknown operator is refused whatever the data
    const found = collection ? runQuery(collection, query) : [];
    const seen = new Map<string, unknown>();
    for (const doc of found) {
      for (const value of valuesAtPath(doc, segments)) {
        for (const item of Array.isArray(value) ? value : [value]) {
          if (item === undefined) continue;
          const key = indexKeyOf(item);
          if (!seen.has(key)) seen.set(key, item);
        }
      }
    }
    const values = [...seen.values()].sort(compareValues);
    const reply = { values, ok: 1 };
    if (BSON.calculateObjectSize(reply) > MAX_BSON_OBJECT_SIZE) {
      throw new CommandError(LocationCode.DistinctTooBig, 'distinct too big, 16mb cap');
    }
    return reply;
  },
};
