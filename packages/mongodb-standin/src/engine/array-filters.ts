/**
 * `arrayFilters` and the positional path segments of update operators: `$[]` reaches every
 * element of an array, `$[<identifier>]` the elements its filter matches (the filter reads the
 * element under the identifier's name: `{ 'i.b': { $gt: 1 } }` tests element.b). An update path
 * is expanded into the concrete paths it reaches in the current document before the operator
 * is applied, after the positional `$` (the element the query matched, positional.ts).
 */
import { badValue, CommandError, ErrorCode } from './errors';
import { compileFilter, Predicate } from './matcher';
import { resolvePositional } from './positional';
import { Document, isPlainDocument, ownField } from './values';

export type ArrayFilters = ReadonlyMap<string, Predicate>;

const IDENTIFIER = /^[a-z][a-zA-Z0-9]*$/;
const FILTERED = /^\$\[(.*)\]$/;

/** Parses the command's `arrayFilters`: one identifier per filter document, each used once. */
export function parseArrayFilters(raw: unknown): ArrayFilters {
  const filters = new Map<string, Predicate>();
  if (raw === undefined || raw === null) return filters;
  if (!Array.isArray(raw) || !raw.every(isPlainDocument))
    throw badValue('arrayFilters must be an array of filter documents');
  for (const filter of raw as Document[]) {
    const identifiers = new Set(Object.keys(filter).map((key) => key.split('.')[0]));
    if (identifiers.size !== 1) {
      throw new CommandError(
        ErrorCode.FailedToParse,
        `Error parsing array filter :: caused by :: Expected a single top-level field name, found ${[...identifiers].map((name) => `'${name}'`).join(' and ') || 'none'}`,
      );
    }
    const [identifier] = identifiers;
    if (!IDENTIFIER.test(identifier)) {
      throw badValue(
        `Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${identifier}'`,
      );
    }
    if (filters.has(identifier)) {
      throw new CommandError(
        ErrorCode.FailedToParse,
        `Found multiple array filters with the same top-level field name ${identifier}`,
      );
    }
    const matches = compileFilter(filter);
    filters.set(identifier, (element) => matches({ [identifier]: element }));
  }
  return filters;
}

/** Refuses identifiers without a filter and filters no path uses, as mongod does. */
export function assertFiltersUsed(paths: string[], filters: ArrayFilters, update: Document): void {
  const used = new Set<string>();
  for (const path of paths) {
    for (const segment of path.split('.')) {
      const identifier = FILTERED.exec(segment)?.[1];
      if (!identifier) continue;
      if (!filters.has(identifier))
        throw badValue(`No array filter found for identifier '${identifier}' in path '${path}'`);
      used.add(identifier);
    }
  }
  for (const identifier of filters.keys()) {
    if (!used.has(identifier)) {
      throw new CommandError(
        ErrorCode.FailedToParse,
        `The array filter for identifier '${identifier}' was not used in the update ${JSON.stringify(update)}`,
      );
    }
  }
}

/**
 * The concrete paths an update path reaches in `doc` (itself when it has no `$[…]` segment);
 * a positional `$` is resolved against the update's query first (positional.ts).
 */
export function concretePaths(
  doc: Document,
  updatePath: string,
  filters: ArrayFilters,
  query: Document | undefined,
): string[] {
  const path = updatePath.split('.').includes('$')
    ? resolvePositional(doc, updatePath, query)
    : updatePath;
  const segments = path.split('.');
  if (!segments.some((segment) => FILTERED.test(segment))) return [path];
  const paths: string[] = [];
  const expand = (value: unknown, at: number, prefix: string[]): void => {
    if (at === segments.length) {
      paths.push(prefix.join('.'));
      return;
    }
    const segment = segments[at];
    const filtered = FILTERED.exec(segment);
    if (!filtered) {
      const next = Array.isArray(value)
        ? value[Number(segment)]
        : isPlainDocument(value)
          ? ownField(value, segment)
          : undefined;
      expand(next, at + 1, [...prefix, segment]);
      return;
    }
    if (!Array.isArray(value)) {
      throw badValue(
        `The path '${prefix.join('.')}' must exist in the document in order to apply array updates.`,
      );
    }
    const matches = filtered[1] === '' ? undefined : filters.get(filtered[1]);
    value.forEach((element, index) => {
      if (!matches || matches(element)) expand(element, at + 1, [...prefix, String(index)]);
    });
  };
  expand(doc, 0, []);
  return paths;
}
