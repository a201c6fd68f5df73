/**
 * Reading a request's JSON body into `req.body`: body-parser's `json` (the BODY_LIMIT, charsets,
 * compressed and chunked bodies, and their errors), with one shortcut for the body every GraphQL
 * client sends.
 *
 * The shortcut: `Content-Type: application/json` (with `charset=utf-8` or none), no
 * `Content-Encoding` or `Transfer-Encoding`, a `Content-Length`. Such a body is read by raw-body,
 * the reader body-parser itself uses, with the same length and limit, into one Buffer; the `verify`
 * hook sees it, then it is parsed by body-parser's rules for `json` (strict: a JSON object or array;
 * an empty body is `{}`; a leading byte order mark is dropped, as iconv-lite's UTF-8 decoding
 * does). What it skips is what body-parser does for any body on the way: parsing the media type
 * twice (type-is, content-type), iconv-lite's decoding, http-errors' wrapping. That cost about 7%
 * of the service's CPU per COUNTER `createUser` (bench/results/0.4.md, "CPU levers of 0.4").
 *
 * Invariant: the answer to a body never depends on the path that read it. Errors carry
 * body-parser's `type` and `status` (all `bodyErrorAnswer` reads); a body over the limit by its
 * `Content-Length` goes to body-parser untouched (raw-body refuses it before reading a byte), which
 * reads off the rest and refuses it as it refuses every other; any other header set goes to
 * body-parser whole. test/http/json-body.test.ts sends each body both ways.
 */
import { json } from 'body-parser';
import type { IncomingMessage, ServerResponse } from 'node:http';
import getRawBody from 'raw-body';

export type Middleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;

/** body-parser's `verify` hook: throws to refuse a raw body (its `type` names the refusal). */
export type VerifyBody = (
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  encoding: string | null,
) => void;

/** The media types the shortcut reads, as clients write them (compared lower-cased). */
const PLAIN_JSON = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
]);

/** Whether a request's headers let the shortcut read its body (see the header). */
export function isPlainJsonBody(req: Pick<IncomingMessage, 'headers'>): boolean {
  const { headers } = req;
  const type = headers['content-type'];
  return (
    type !== undefined &&
    headers['content-length'] !== undefined &&
    headers['content-encoding'] === undefined &&
    headers['transfer-encoding'] === undefined &&
    PLAIN_JSON.has(type.toLowerCase())
  );
}

/** body-parser's refusal of a body that is not JSON, or not an object or array (`strict`). */
class JsonBodyError extends Error {
  readonly status = 400;
  readonly type = 'entity.parse.failed';
}

/** JSON's own whitespace, the only characters body-parser's strict check skips. */
const JSON_WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** What body-parser's strict JSON parser answers for a decoded body. */
function parseStrict(text: string): unknown {
  if (text.length === 0) return {};
  let at = 0;
  while (at < text.length && JSON_WHITESPACE.has(text[at])) at += 1;
  const first = text[at];
  if (first !== '{' && first !== '[') {
    throw new JsonBodyError('A JSON request body must hold an object or an array');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new JsonBodyError((err as Error).message);
  }
}

/** A middleware that reads a JSON body into `req.body` (see the header), within `limit`. */
export function jsonBodyReader(options: { limit: string; verify: VerifyBody }): Middleware {
  const bodyParser = json(options) as Middleware;
  return (req, res, next) => {
    if (!isPlainJsonBody(req)) return bodyParser(req, res, next);
    const length = req.headers['content-length'];
    getRawBody(req, { length, limit: options.limit }, (err, body) => {
      if (err) {
        // Over the limit by its Content-Length: nothing was read, body-parser refuses it.
        if (err.type === 'entity.too.large' && err.received === undefined)
          bodyParser(req, res, next);
        else next(err);
        return;
      }
      try {
        options.verify(req, res, body, 'utf-8');
        const text = body.toString('utf8');
        (req as IncomingMessage & { body?: unknown }).body = parseStrict(
          text.charCodeAt(0) === 0xfeff ? text.slice(1) : text,
        );
      } catch (failure) {
        next(failure);
        return;
      }
      next();
    });
  };
}
