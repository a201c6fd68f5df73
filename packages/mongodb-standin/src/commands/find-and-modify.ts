/**
 * `findAndModify`: find one document (query + sort), then remove it, update it, or upsert, and
 * return the pre- or post-image (`new`), projected by `fields`. Runs in one synchronous step, so
 * concurrent `$inc`s on one counter each see and return a distinct value. A unique-index
 * conflict fails the command with DuplicateKey (11000) and keyPattern/keyValue.
 */
import { collectionNameOf, CommandDefinition, optionalDocument } from './context';
import { badValue } from '../engine/errors';
import { compileProjection } from '../engine/projection';
import { parseArrayFilters } from '../engine/array-filters';
import { commandVariables } from '../engine/expressions';
import { assertHintUsable, runQuery } from '../engine/query';
import { compileFilter } from '../engine/matcher';
import { validateUpdate } from '../engine/update';
import { Document } from '../engine/values';
import { assertUpsertQueryAllowed, updateDocument, upsertDocument } from '../engine/writes';

export const findAndModify: CommandDefinition = {
  name: 'findAndModify',
  aliases: ['findandmodify'],
  fields: [
    'query',
    'sort',
    'update',
    'remove',
    'new',
    'upsert',
    'fields',
    'bypassDocumentValidation',
    'hint',
    'arrayFilters',
    'let',
  ],
  run(command, { server, database }) {
    const name = collectionNameOf(command, Object.keys(command)[0]);
    const query = optionalDocument(command, 'query');
    const remove = command.remove === true;
    const upsert = command.upsert === true;
    const returnNew = command.new === true;
    if (remove && (command.update !== undefined || upsert || returnNew)) {
      throw badValue(
        'Cannot specify both an update and remove=true, nor upsert or new with remove',
      );
    }
    if (!remove && command.update === undefined)
      throw badValue('Either an update or remove=true must be specified');
    if (upsert) assertUpsertQueryAllowed(query);
    const project = compileProjection(optionalDocument(command, 'fields'));
    const collection = upsert
      ? server.store.obtain(database, name).collection
      : server.store.get(database, name);
    assertHintUsable(collection, command.hint);
    const variables = commandVariables(command.let, server.now());
    const arrayFilters = parseArrayFilters(command.arrayFilters);
    const context = { arrayFilters, variables, query };
    // refused whatever the data, as mongod parses both before it looks for a document
    if (!remove) validateUpdate(command.update);
    compileFilter(query, variables);
    const [found] = collection
      ? runQuery(collection, query, {
          sort: optionalDocument(command, 'sort'),
          limit: 1,
          variables,
        })
      : [];
    const reply = (lastErrorObject: Document, value: Document | null): Document => ({
      lastErrorObject,
      value: value && project(value),
      ok: 1,
    });
    if (!collection) return reply({ n: 0, updatedExisting: false }, null);
    if (remove) {
      if (found) collection.remove(found);
      return reply({ n: found ? 1 : 0 }, found ?? null);
    }
    if (found) {
      const updated = updateDocument(collection, found, command.update, context);
      return reply({ n: 1, updatedExisting: true }, returnNew ? updated : found);
    }
    if (!upsert) return reply({ n: 0, updatedExisting: false }, null);
    const inserted = upsertDocument(collection, query, command.update, context);
    return reply(
      { n: 1, updatedExisting: false, upserted: inserted._id },
      returnNew ? inserted : null,
    );
  },
};
