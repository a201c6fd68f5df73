/**
 * Trusted documents: with a manifest configured (TRUSTED_DOCUMENTS, the JSON file of sha256 hash ->
 * document text that GraphQL Code Generator's client preset emits with `persistedDocuments`), a
 * caller the manifest binds in production runs only the documents it lists.
 *
 * Invariants:
 * - Who is bound: callers without a token, and with TRUSTED_DOCUMENTS_FOR=clients client tokens
 *   too; the admin never is. Outside production nobody is, so the Sandbox and the local explorer
 *   keep working with a manifest configured.
 * - What a bound caller may send, per operation (one or each of a batch, POST or GET): a hash of
 *   the manifest, as Apollo's persisted-query extension (`extensions.persistedQuery.sha256Hash`,
 *   what Apollo Client's persisted-queries link sends) or as `documentId` (`sha256:<hash>` or the
 *   bare hash), with or without the text; or the identical text of a listed document. The text is
 *   then the manifest's: it is put in `query` before Apollo reads the request, and the hash fields
 *   are taken out. Anything else is refused whole, before Apollo parses anything: 403
 *   `UNTRUSTED_DOCUMENT`.
 * - Apollo's automatic persisted queries (APQ) stay on for callers that are not bound. A bound
 *   caller never reaches APQ with a hash or a text of its own: an unknown hash is refused here, not
 *   looked up in (or registered into) Apollo's cache, so no caller without a token adds a document.
 * - The manifest is read and checked once, at start: every key is the sha256 of its text (a stale
 *   manifest stops the process rather than letting a client's operation be refused at run time).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { Caller } from '../auth/index';
import { sendError, type ServiceRequest } from './admission';

/** Who the manifest binds besides callers without a token (TRUSTED_DOCUMENTS_FOR). */
export type TrustedDocumentsFor = 'anonymous' | 'clients';

/** The manifest, by hash, and who it binds. */
export interface TrustedDocuments {
  byHash: ReadonlyMap<string, string>;
  /** Whether `caller` may run only these documents. */
  binds: (caller: Caller) => boolean;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A hash as a `documentId` or a manifest key may carry it (`sha256:<hash>`), bare. */
function withoutPrefix(hash: string): string {
  return hash.startsWith('sha256:') ? hash.slice('sha256:'.length) : hash;
}

/** Thrown when the manifest cannot be used; the message names the file and what is wrong. */
export class TrustedDocumentsError extends Error {
  override readonly name = 'TrustedDocumentsError';
}

/** The manifest at `path`, checked (see the header). */
export function loadTrustedDocuments(path: string, bound: TrustedDocumentsFor): TrustedDocuments {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new TrustedDocumentsError(
      `TRUSTED_DOCUMENTS: cannot read ${path} as JSON (${(err as Error).message})`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new TrustedDocumentsError(
      `TRUSTED_DOCUMENTS: ${path} must hold an object of sha256 hashes to document texts`,
    );
  }
  const byHash = new Map<string, string>();
  for (const [key, text] of Object.entries(parsed)) {
    // The client preset writes `sha256:<hash>`; a bare hash is accepted too.
    const hash = withoutPrefix(key);
    if (!SHA256_HEX.test(hash) || typeof text !== 'string' || sha256Hex(text) !== hash) {
      throw new TrustedDocumentsError(
        `TRUSTED_DOCUMENTS: in ${path}, ${key.slice(0, 80)} is not the sha256 of its document (regenerate the manifest)`,
      );
    }
    byHash.set(hash, text);
  }
  const binds = (caller: Caller) =>
    caller.role === 'anonymous' || (bound === 'clients' && caller.role === 'client');
  return { byHash, binds };
}

/** The hash an operation names, from `documentId` or the persisted-query extension. */
function namedHash(operation: Record<string, unknown>): string | undefined | null {
  const { documentId, extensions } = operation;
  if (documentId !== undefined) {
    if (typeof documentId !== 'string') return null;
    return withoutPrefix(documentId);
  }
  const persisted = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)
    ?.persistedQuery;
  if (persisted === undefined) return undefined;
  return typeof persisted?.sha256Hash === 'string' ? withoutPrefix(persisted.sha256Hash) : null;
}

/**
 * The manifest's text for one operation, or null when it names or holds no listed document. A hash
 * sent with a text must be the text's own (as APQ checks it).
 */
function trustedText(
  operation: Record<string, unknown>,
  byHash: ReadonlyMap<string, string>,
): string | null {
  const hash = namedHash(operation);
  const { query } = operation;
  if (hash === null) return null;
  if (hash === undefined) {
    if (typeof query !== 'string') return null;
    return byHash.has(sha256Hex(query)) ? query : null;
  }
  const text = byHash.get(hash);
  if (text === undefined) return null;
  if (query !== undefined && query !== text) return null;
  return text;
}

/** The operation with the manifest's text as `query` and no hash fields (Apollo reads `query`). */
function withText(operation: Record<string, unknown>, text: string): Record<string, unknown> {
  const { documentId: _documentId, extensions, ...rest } = operation;
  const { persistedQuery: _persisted, ...otherExtensions } = (extensions ?? {}) as Record<
    string,
    unknown
  >;
  return Object.keys(otherExtensions).length === 0
    ? { ...rest, query: text }
    : { ...rest, query: text, extensions: otherExtensions };
}

function refuse(req: ServiceRequest, res: ServerResponse): true {
  sendError(
    req,
    res,
    403,
    'UNTRUSTED_DOCUMENT',
    'This service runs only its trusted documents for this caller: send the sha256 of a document of its manifest (extensions.persistedQuery.sha256Hash or documentId) or its identical text, or use a token.',
  );
  return true;
}

/**
 * For a caller the manifest binds: answers 403 and returns true unless every operation is a listed
 * document, and otherwise puts each one's text in place (see the header). A GET's operation is
 * read from `search` and, when trusted, given to Apollo as a POST-like body would be: the query
 * string is rewritten with the text.
 */
export function refusedDocument(
  trusted: TrustedDocuments | null,
  req: ServiceRequest,
  res: ServerResponse,
  search: string,
): { refused: true } | { refused: false; search: string } {
  if (trusted === null || !trusted.binds(req.caller)) return { refused: false, search };
  if (req.method === 'GET') {
    const params = new URLSearchParams(search);
    const operation: Record<string, unknown> = {};
    const query = params.get('query');
    if (query !== null) operation.query = query;
    const documentId = params.get('documentId');
    if (documentId !== null) operation.documentId = documentId;
    const extensions = params.get('extensions');
    if (extensions !== null) {
      try {
        operation.extensions = JSON.parse(extensions);
      } catch {
        return { refused: refuse(req, res) };
      }
    }
    const text = trustedText(operation, trusted.byHash);
    if (text === null) return { refused: refuse(req, res) };
    params.delete('documentId');
    params.delete('extensions');
    params.set('query', text);
    return { refused: false, search: `?${params.toString()}` };
  }
  const body = req.body;
  const operations = Array.isArray(body) ? body : [body];
  const resolved: Array<Record<string, unknown>> = [];
  for (const operation of operations) {
    if (typeof operation !== 'object' || operation === null) return { refused: refuse(req, res) };
    const record = operation as Record<string, unknown>;
    const text = trustedText(record, trusted.byHash);
    if (text === null) return { refused: refuse(req, res) };
    resolved.push(withText(record, text));
  }
  req.body = Array.isArray(body) ? resolved : resolved[0];
  return { refused: false, search };
}
