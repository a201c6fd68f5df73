/**
 * Sort specifications ({a: 1, b: -1}) as comparators over stored documents, with MongoDB's BSON
 * order; a missing field sorts as null. Array-valued sort keys (MongoDB sorts those by their
 * smallest/largest element) are refused rather than ordered differently.
 */
import { badValue, unsupported } from './errors';
import { getPath } from './paths';
import { compareValues, Document, isNumeric, numberOf } from './values';

export type Comparator = (a: Document, b: Document) => number;

export function parseSort(spec: Document): Array<[string, 1 | -1]> {
  return Object.entries(spec).map(([field, direction]) => {
    if (!isNumeric(direction))
      throw unsupported(`the sort specification ${field}: ${JSON.stringify(direction)}`);
    const n = numberOf(direction);
    if (n !== 1 && n !== -1)
      throw badValue(`$sort key ordering must be 1 (for ascending) or -1 (for descending)`);
    return [field, n];
  });
}

function sortValue(doc: Document, field: string): unknown {
  const value = getPath(doc, field);
  if (Array.isArray(value)) throw unsupported(`sorting on the array-valued field '${field}'`);
  return value;
}

export function comparatorFor(spec: Document): Comparator {
  const keys = parseSort(spec);
  return (a, b) => {
    for (const [field, direction] of keys) {
      const order = compareValues(sortValue(a, field), sortValue(b, field));
      if (order !== 0) return order * direction;
    }
    return 0;
  };
}
