/**
 * `insert`: documents arrive in the body or as an OP_MSG document sequence. Ordered inserts stop
 * at the first failure; unordered ones insert everything else. Failures are writeErrors with the
 * statement index (E11000 with keyPattern/keyValue; a document above mongod's size or nesting
 * bound, engine/document-limits.ts), the command itself still ok: 1.
 */
import { collectionNameOf, CommandDefinition, documentsOf } from './context';
import { assertStorable } from '../engine/document-limits';
import { WriteErrors } from './write-errors';

export const insert: CommandDefinition = {
  name: 'insert',
  fields: ['documents', 'ordered', 'bypassDocumentValidation'],
  run(command, { server, database }) {
    const documents = documentsOf(command, 'documents');
    const { collection } = server.store.obtain(database, collectionNameOf(command, 'insert'));
    const errors = new WriteErrors(command.ordered !== false);
    let inserted = 0;
    for (let index = 0; index < documents.length; index++) {
      try {
        assertStorable(documents[index], 'insert');
        collection.insert(documents[index]);
        inserted++;
      } catch (error) {
        if (!errors.record(error, index)) break;
      }
    }
    return errors.decorate({ n: inserted, ok: 1 });
  },
};
