/**
 * mongod's rules on names (NamespaceString::validDBName and validCollectionName), so a name
 * mongod refuses is refused here too, with InvalidNamespace (73), whatever the command:
 *
 * - A database name (`$db` of every command) is 1 to 63 bytes and holds none of `/ \ . " `,
 *   space and NUL.
 * - A collection a write creates (or a rename names) is in a database without `$`, is not empty, does not begin with `.`,
 *   holds no `$` or NUL, and keeps `<database>.<collection>` within 255 bytes. Reads of any
 *   other name find nothing, as on mongod, so nothing can create such a collection.
 */
import { CommandError, ErrorCode } from './errors';

const MAX_DATABASE_NAME_BYTES = 63;
const MAX_NAMESPACE_BYTES = 255;
const INVALID_DATABASE_CHARACTER = /[/\\. "\0]/;
const INVALID_COLLECTION_NAME = /^$|^\.|[$\0]/;

export function assertValidDatabaseName(database: string): void {
  const bytes = Buffer.byteLength(database);
  if (bytes > MAX_DATABASE_NAME_BYTES) {
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      `db name must be at most ${MAX_DATABASE_NAME_BYTES} characters, found: ${bytes}`,
    );
  }
  if (bytes === 0 || INVALID_DATABASE_CHARACTER.test(database)) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid database name: '${database}'`);
  }
}

export function assertCreatableCollection(database: string, name: string): void {
  if (database.includes('$')) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid namespace: ${database}.${name}`);
  }
  if (INVALID_COLLECTION_NAME.test(name)) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid collection name: ${name}`);
  }
  const namespace = `${database}.${name}`;
  if (Buffer.byteLength(namespace) > MAX_NAMESPACE_BYTES) {
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      `Fully qualified namespace is too long. Namespace: ${namespace} Max: ${MAX_NAMESPACE_BYTES}`,
    );
  }
}
