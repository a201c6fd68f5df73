/** `delete`: statements `{ q, limit, hint }` (limit 0 = all matches, 1 = the first). */
import { collectionNameOf, CommandDefinition, documentsOf } from './context';
import { badValue, unsupported } from '../engine/errors';
import { commandVariables } from '../engine/expressions';
import { compileFilter } from '../engine/matcher';
import { assertHintUsable, runQuery } from '../engine/query';
import { Document, numberOf } from '../engine/values';
import { WriteErrors } from './write-errors';

/** Statement fields; `collation` is refused by name. */
const STATEMENT_FIELDS = new Set(['q', 'limit', 'hint']);

export const deleteCommand: CommandDefinition = {
  name: 'delete',
  fields: ['deletes', 'ordered', 'let'],
  run(command, { server, database }) {
    const statements = documentsOf(command, 'deletes');
    const collection = server.store.get(database, collectionNameOf(command, 'delete'));
    const errors = new WriteErrors(command.ordered !== false);
    const variables = commandVariables(command.let, server.now());
    let removed = 0;
    for (let index = 0; index < statements.length; index++) {
      const statement = statements[index];
      try {
        for (const field of Object.keys(statement)) {
          if (!STATEMENT_FIELDS.has(field)) throw unsupported(`delete statement field '${field}'`);
        }
        assertHintUsable(collection, statement.hint);
        const limit = numberOf(statement.limit ?? 0);
        if (limit !== 0 && limit !== 1) throw badValue('delete limit must be 0 or 1');
        const filter = statement.q as Document;
        compileFilter(filter, variables); // an unknown operator is refused whatever the data
        const found = collection ? runQuery(collection, filter, { limit, variables }) : [];
        for (const doc of found) collection!.remove(doc);
        removed += found.length;
      } catch (error) {
        if (!errors.record(error, index)) break;
      }
    }
    return errors.decorate({ n: removed, ok: 1 });
  },
};
