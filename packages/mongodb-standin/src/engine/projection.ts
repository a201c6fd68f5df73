/**
 * find/findAndModify projections: inclusion ({a: 1, 'b.c': 1}, `_id` kept unless excluded) or
 * exclusion ({a: 0}), never mixed except for `_id`. Projection operators ($slice, $elemMatch,
 * expressions) are refused. Returns new objects; stored documents are untouched.
 */
import { badValue, unsupported } from './errors';
import { isTruthy } from './expressions';
import { getPath, setPath, unsetPath } from './paths';
import { cloneValue, Document, isNumeric, isPlainDocument } from './values';

export type Projector = (doc: Document) => Document;

export function compileProjection(spec: Document | undefined | null): Projector {
  if (!spec || Object.keys(spec).length === 0) return (doc) => doc;
  const included: string[] = [];
  const excluded: string[] = [];
  let keepId = true;
  for (const [path, value] of Object.entries(spec)) {
    if (!isNumeric(value) && typeof value !== 'boolean') {
      throw unsupported(`projection expressions (${path})`);
    }
    if (isPlainDocument(value)) throw unsupported(`projection operators (${path})`);
    if (path === '_id') keepId = isTruthy(value);
    else if (isTruthy(value)) included.push(path);
    else excluded.push(path);
  }
  if (included.length > 0 && excluded.length > 0) {
    throw badValue(`Cannot do exclusion on field ${excluded[0]} in inclusion projection`);
  }
  if (included.length > 0) {
    return (doc) => {
      const result: Document = {};
      if (keepId && '_id' in doc) result._id = doc._id;
      for (const path of included) {
        const value = getPath(doc, path);
        if (value !== undefined) setPath(result, path, cloneValue(value));
      }
      return result;
    };
  }
  return (doc) => {
    const result = cloneValue(doc);
    if (!keepId) delete result._id;
    for (const path of excluded) unsetPath(result, path);
    return result;
  };
}
