/**
 * Recognising MongoDB's duplicate-key error (E11000) and which unique index it is about.
 *
 * Why: a duplicate on `_id` means "id taken, take another" while a duplicate on `email` is the
 * user's error; treating them alike either loops forever or fails a request that should retry.
 * Servers since 4.2 send `keyPattern`; older ones and some write errors only name the index in the
 * message, so both are read.
 */
export const DUPLICATE_KEY = 11000;

interface ErrorLike {
  code?: unknown;
  keyPattern?: unknown;
  keyValue?: unknown;
  errmsg?: unknown;
  message?: unknown;
  errInfo?: unknown;
}

function asErrorLike(err: unknown): ErrorLike | null {
  return typeof err === 'object' && err !== null ? (err as ErrorLike) : null;
}

/** The fields of the unique index a duplicate-key error is about, or null when unknown. */
export function duplicateKeyFields(err: unknown): string[] | null {
  const e = asErrorLike(err);
  if (e === null) return null;
  for (const pattern of [e.keyPattern, e.keyValue]) {
    if (typeof pattern === 'object' && pattern !== null) return Object.keys(pattern);
  }
  const message =
    typeof e.errmsg === 'string' ? e.errmsg : typeof e.message === 'string' ? e.message : '';
  const dupKey = /dup key: \{\s*([^:}\s]+)\s*:/.exec(message);
  if (dupKey) return [dupKey[1].replace(/^"|"$/g, '')];
  const index = /index: (\S+)/.exec(message);
  if (index) return [index[1] === '_id_' ? '_id' : index[1].replace(/_-?1$/, '')];
  return null;
}

/**
 * True for E11000 (from a command, or one write error of a bulk write); with `field`, only when the
 * duplicate is on that field's unique index.
 */
export function isDuplicateKeyError(err: unknown, field?: string): boolean {
  const e = asErrorLike(err);
  if (e === null || e.code !== DUPLICATE_KEY) return false;
  if (field === undefined) return true;
  return duplicateKeyFields(err)?.includes(field) ?? false;
}
