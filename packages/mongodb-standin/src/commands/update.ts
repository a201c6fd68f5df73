/**
 * `update`: statements `{ q, u, upsert, multi }`, each applied atomically per document. Ordered
 * statements stop at the first failure; failures are writeErrors with the statement index.
 * Reports n (matched), nModified (actually changed) and upserted `{ index, _id }` entries.
 */
import { collectionNameOf, CommandDefinition, documentsOf } from './context';
import { unsupported } from '../engine/errors';
import { parseArrayFilters } from '../engine/array-filters';
import { commandVariables } from '../engine/expressions';
import { assertHintUsable, runQuery } from '../engine/query';
import { validateUpdate } from '../engine/update';
import { Document } from '../engine/values';
import { assertUpsertQueryAllowed, updateDocument, upsertDocument } from '../engine/writes';
import { WriteErrors } from './write-errors';

/** Statement fields; `collation` is refused by name. */
const STATEMENT_FIELDS = new Set(['q', 'u', 'upsert', 'multi', 'hint', 'arrayFilters']);

export const update: CommandDefinition = {
  name: 'update',
  fields: ['updates', 'ordered', 'bypassDocumentValidation', 'let'],
  run(command, { server, database }) {
    const statements = documentsOf(command, 'updates');
    const { collection } = server.store.obtain(database, collectionNameOf(command, 'update'));
    const errors = new WriteErrors(command.ordered !== false);
    const upserted: Document[] = [];
    const variables = commandVariables(command.let, server.now());
    let matched = 0;
    let modified = 0;
    for (let index = 0; index < statements.length; index++) {
      const statement = statements[index];
      try {
        for (const field of Object.keys(statement)) {
          if (!STATEMENT_FIELDS.has(field)) throw unsupported(`update statement field '${field}'`);
        }
        assertHintUsable(collection, statement.hint);
        validateUpdate(statement.u);
        const filter = statement.q as Document | undefined;
        const arrayFilters = parseArrayFilters(statement.arrayFilters);
        const context = { arrayFilters, variables, query: filter };
        if (statement.upsert === true) assertUpsertQueryAllowed(filter);
        const limit = statement.multi === true ? 0 : 1;
        const found = runQuery(collection, filter, { limit, variables });
        for (const doc of found) {
          const next = updateDocument(collection, doc, statement.u, context);
          matched++;
          if (next !== doc) modified++;
        }
        if (found.length === 0 && statement.upsert === true) {
          const inserted = upsertDocument(collection, filter, statement.u, context);
          upserted.push({ index, _id: inserted._id });
        }
      } catch (error) {
        if (!errors.record(error, index)) break;
      }
    }
    const reply: Document = { n: matched + upserted.length, nModified: modified };
    if (upserted.length > 0) reply.upserted = upserted;
    return errors.decorate({ ...reply, ok: 1 });
  },
};
