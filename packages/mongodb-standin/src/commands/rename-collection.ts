/**
 * `renameCollection` (admin): a collection to a new name in the same database, with its
 * documents, indexes and options. With `dropTarget: true` an existing target is dropped by the
 * rename itself (one change: streams see the rename, no drop); without it an existing target is
 * NamespaceExists (48).
 * A rename across databases is refused.
 */
import { CommandDefinition } from './context';
import { CommandError, ErrorCode, unsupported } from '../engine/errors';

function namespaceOf(value: unknown, field: string): { db: string; coll: string } {
  const dot = typeof value === 'string' ? value.indexOf('.') : -1;
  if (typeof value !== 'string' || dot <= 0 || dot === value.length - 1)
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      `Invalid ${field} namespace: ${String(value)}`,
    );
  return { db: value.slice(0, dot), coll: value.slice(dot + 1) };
}

export const renameCollection: CommandDefinition = {
  name: 'renameCollection',
  fields: ['to', 'dropTarget', 'stayTemp'],
  run(command, { server, database }) {
    if (database !== 'admin')
      throw new CommandError(
        ErrorCode.Unauthorized,
        'renameCollection may only be run against the admin database.',
      );
    const source = namespaceOf(command.renameCollection, 'source');
    const target = namespaceOf(command.to, 'target');
    if (source.db !== target.db) throw unsupported('renameCollection across databases');
    const { store } = server;
    if (!store.get(source.db, source.coll))
      throw new CommandError(
        ErrorCode.NamespaceNotFound,
        `Source collection ${source.db}.${source.coll} does not exist`,
      );
    if (source.coll === target.coll)
      throw new CommandError(ErrorCode.IllegalOperation, "Can't rename a collection to itself");
    if (store.get(target.db, target.coll) && command.dropTarget !== true)
      throw new CommandError(ErrorCode.NamespaceExists, 'target namespace exists');
    store.rename(source.db, source.coll, target.coll, command.dropTarget === true);
    return { ok: 1 };
  },
};
