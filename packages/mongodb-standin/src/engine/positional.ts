/**
 * The positional `$` of update paths (`grades.$`, `items.$.qty`): the element of the array at
 * the path before `$` that the query matched. mongod takes the position from its matcher; here
 * it is the first element for which the query's condition on that array holds when the array
 * holds only that element. That is the element mongod picks when the query has one condition
 * on the array (one field under it, one operator, no `$or`/`$nor`/`$elemMatch`/`$expr`
 * around it), and only then is it used: anything else is refused rather than risk updating
 * another element.
 */
import { badValue, unsupported } from './errors';
import { compileFilter } from './matcher';
import { getPath, setPath } from './paths';
import { cloneValue, Document, isPlainDocument } from './values';

const NOT_FOUND = 'The positional operator did not find the match needed from the query.';

/** The query's top-level conditions, with `$and` clauses flattened. */
function conditionsOf(query: Document): Array<[string, unknown]> {
  const conditions: Array<[string, unknown]> = [];
  for (const [key, condition] of Object.entries(query)) {
    if (key === '$and' && Array.isArray(condition)) {
      for (const clause of condition)
        if (isPlainDocument(clause)) conditions.push(...conditionsOf(clause));
    } else conditions.push([key, condition]);
  }
  return conditions;
}

/** `path` with its `$` segment replaced by the index of the element the query matched. */
export function resolvePositional(
  doc: Document,
  path: string,
  query: Document | undefined,
): string {
  const segments = path.split('.');
  const at = segments.indexOf('$');
  if (segments.lastIndexOf('$') !== at)
    throw badValue(`Too many positional (i.e. '$') elements found in path '${path}'`);
  const arrayPath = segments.slice(0, at).join('.');
  const conditions = conditionsOf(query ?? {});
  if (conditions.some(([key]) => ['$or', '$nor', '$expr', '$where'].includes(key)))
    throw unsupported(
      `the positional $ operator in '${path}' with $or, $nor or $expr in the query`,
    );
  const onArray = conditions.filter(
    ([key]) => key === arrayPath || key.startsWith(`${arrayPath}.`),
  );
  const [only] = onArray;
  const operators = isPlainDocument(only?.[1]) ? Object.keys(only[1]) : [];
  const singleOperator = operators.length <= 1 || !operators.every((key) => key.startsWith('$'));
  if (onArray.length > 1 || (only && (!singleOperator || operators.includes('$elemMatch'))))
    throw unsupported(
      `the positional $ operator in '${path}' with more than one condition on '${arrayPath}'`,
    );
  const array = getPath(doc, arrayPath);
  if (!only || !Array.isArray(array)) throw badValue(NOT_FOUND);
  const matches = compileFilter({ [only[0]]: only[1] });
  const probe = cloneValue(doc);
  const index = array.findIndex((element) => {
    setPath(probe, arrayPath, [element]);
    return matches(probe);
  });
  if (index === -1) throw badValue(NOT_FOUND);
  return [...segments.slice(0, at), String(index), ...segments.slice(at + 1)].join('.');
}
