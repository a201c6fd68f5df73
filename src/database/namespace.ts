/** Recognising MongoDB's NamespaceNotFound: the collection (or database) does not exist. */
export const NAMESPACE_NOT_FOUND = 26;

/** True when a command failed because its collection does not exist (e.g. `listIndexes` after a drop). */
export function isNamespaceNotFound(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { code?: unknown }).code === NAMESPACE_NOT_FOUND
  );
}
