/**
 * MongoDB 5+'s rules on field names in stored documents. Dotted and `$`-prefixed names are
 * allowed anywhere (they are data, not paths or operators), except inside `_id`: an `_id`
 * document may hold no `$`-prefixed name at any depth (DollarPrefixedFieldName, 52, as mongod
 * 7.1+ checks it), and `_id` may be neither an array nor a regex (BadValue). Replacement
 * documents of updates may not have `$`-prefixed top-level names (they would read as
 * operators); update operators' own rules live in update.ts.
 */
import { badValue, CommandError, ErrorCode } from './errors';
import { isRegexValue } from './regex';
import { Document, isPlainDocument } from './values';

function dollarPrefixedName(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const element of value) {
      const found = dollarPrefixedName(element);
      if (found !== undefined) return found;
    }
  } else if (isPlainDocument(value)) {
    for (const [name, field] of Object.entries(value)) {
      if (name.startsWith('$')) return name;
      const found = dollarPrefixedName(field);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Refuses an `_id` mongod would not store. */
export function assertStorableId(id: unknown): void {
  if (Array.isArray(id)) throw badValue("can't use an array for _id");
  if (isRegexValue(id)) throw badValue("can't use a regex for _id");
  const name = dollarPrefixedName(id);
  if (name !== undefined) {
    throw new CommandError(
      ErrorCode.DollarPrefixedFieldName,
      `_id fields may not contain '$'-prefixed fields: ${name} is not valid for storage.`,
    );
  }
}

/** Refuses a replacement document with a `$`-prefixed top-level name. */
export function assertReplacementNames(replacement: Document): void {
  const name = Object.keys(replacement).find((key) => key.startsWith('$'));
  if (name !== undefined) {
    throw new CommandError(
      ErrorCode.DollarPrefixedFieldName,
      `The dollar ($) prefixed field '${name}' in '${name}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
    );
  }
}
