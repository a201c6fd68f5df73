/**
 * Admission: what a request must pass before GraphQL runs it, and the answer when it does not.
 * Each check answers with a 4xx (or 503 for time) and a GraphQL-shaped error body, never a 500
 * (the numbers are src/limits.ts):
 * - at most BATCHED_OPERATIONS operations in one batched (array) request (`refusedBatch`): 400;
 * - the body size limit of body-parser's `json` (BODY_LIMIT, ./json-body.ts): 413 PAYLOAD_TOO_LARGE;
 *   malformed JSON: 400;
 * - the whole request, body upload included, bounded by REQUEST_TIMEOUT_MS (`startDeadline`): at
 *   the deadline the request's budget aborts (domain writes and root fields check it) and the client
 *   gets 503 SERVICE_UNAVAILABLE with `retryable: true`; a request whose body arrives after that is
 *   never executed;
 * - what each operation's variables hold, before GraphQL reads them (`refusedInput`, with
 *   ./input-bounds.ts): bounded in size, well-formed Unicode; and no string literal of a document
 *   holding half of a surrogate pair (src/graphql/lone-surrogates.ts). 400 BAD_USER_INPUT naming
 *   the value. The size bounds are met first on the raw body, before `JSON.parse` builds it
 *   (`verifyInputBounds`, body-parser's `verify` hook, with ./raw-input-bounds.ts), so a hostile
 *   body costs one scan of its bytes, not a parse;
 * - what the whole request asks for, over every alias and batched operation (users created,
 *   allocations, listed items): planned by src/graphql/request-bounds.ts on Apollo's document
 *   before anything runs (`startBounds`), and answered here as one error (`sendRefusal`);
 * - the caller's budgets over time (src/budgets): the users a request would create are charged
 *   once its plan passed every bound, before anything runs; past the budget it is refused whole,
 *   429 RATE_LIMITED with `Retry-After` (and `retryAfter` in the error's extensions).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { usersPerRequest, type Caller } from '../auth/index';
import { budgetHolder, RateLimitedError, type BudgetHolder, type Budgets } from '../budgets/index';
import { malformedLiteral, RequestBounds } from '../graphql/index';
import type { ObservedRequest } from '../stats/index';
import type { RequestIds } from '../telemetry/index';
import { BATCHED_OPERATIONS, DOCUMENT } from '../limits';
import { RequestDeadline, type RequestBudget } from '../request-deadline';
import { inputProblem, type InputProblem } from './input-bounds';
import { rawInputProblem } from './raw-input-bounds';

/**
 * A request as the HTTP layer knows it before GraphQL runs: its ids (src/telemetry, first of all),
 * who is calling (src/auth, once per request), its budget (the deadline), once read its JSON body,
 * and the bounds its operations share.
 */
export interface ServiceRequest extends IncomingMessage {
  ids: RequestIds;
  /** What its metrics record (src/stats), for a request to `/graphql`. */
  observed?: ObservedRequest;
  caller: Caller;
  /** The client address (src/auth/address.ts, `TRUST_PROXY`). */
  address: string;
  /** Whose budgets the request draws on: the caller, or its address without a token. */
  holder: BudgetHolder;
  budget: RequestBudget;
  body?: unknown;
  bounds: RequestBounds;
}

/** Answers `status` with a JSON body (with its length, so the connection can stay open). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

/** Answers one GraphQL-shaped error, naming the request's id as GraphQL's own errors do. */
export function sendError(
  req: ServiceRequest,
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  extensions: Record<string, unknown> = {},
): void {
  req.observed?.refused(code);
  sendJson(res, status, {
    errors: [{ message, extensions: { code, ...extensions, requestId: req.ids.requestId } }],
  });
}

/** Answers 400 and returns true for a batch of more than BATCHED_OPERATIONS operations. */
export function refusedBatch(req: ServiceRequest, res: ServerResponse): boolean {
  if (!Array.isArray(req.body) || req.body.length <= BATCHED_OPERATIONS) return false;
  sendError(
    req,
    res,
    400,
    'BAD_REQUEST',
    `A batched request may hold at most ${BATCHED_OPERATIONS} operations`,
  );
  return true;
}

/**
 * Starts the request's budget (`req.budget`), before the body is read; the caller ends it once the
 * request is done (answered, refused or failed), which stops its timer.
 */
export function startDeadline(
  req: ServiceRequest,
  res: ServerResponse,
  timeoutMs: number,
): RequestDeadline {
  const deadline = new RequestDeadline(timeoutMs, (reason) => {
    if (!res.headersSent) {
      sendError(req, res, 503, 'SERVICE_UNAVAILABLE', reason.message, { retryable: true });
    }
  });
  req.budget = deadline;
  return deadline;
}

interface ReceivedOperation {
  query?: unknown;
  variables?: unknown;
}

/** Parsed from a GET query string's JSON parameter; Apollo refuses what does not parse. */
function parsedParameter(value: string | null): unknown {
  try {
    return value === null ? undefined : JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** The operations of a POST body (one or a batch) or of a GET query string (`search`). */
function operationsOf(req: ServiceRequest, search: string): ReceivedOperation[] {
  if (req.method !== 'GET') {
    const body: unknown = req.body;
    const operations = Array.isArray(body) ? body : [body];
    return operations.filter(
      (operation): operation is ReceivedOperation =>
        typeof operation === 'object' && operation !== null,
    );
  }
  const params = new URLSearchParams(search);
  return [
    {
      query: params.get('query') ?? undefined,
      variables: parsedParameter(params.get('variables')),
    },
  ];
}

/**
 * After the body is read: answers 400 and returns true when an operation's variables pass an input
 * bound or hold a lone surrogate, or a document's literal does; else starts the request's bounds
 * (`req.bounds`), which its operations share in GraphQL.
 */
export function refusedInput(
  req: ServiceRequest,
  res: ServerResponse,
  search: string,
  budgets: Budgets,
): boolean {
  const operations = operationsOf(req, search);
  for (const operation of operations) {
    const problem = inputProblem(operation.variables);
    if (problem !== null) {
      sendError(req, res, 400, 'BAD_USER_INPUT', problem.message, { field: problem.field });
      return true;
    }
    const literal =
      typeof operation.query === 'string'
        ? malformedLiteral(operation.query, DOCUMENT.tokens)
        : null;
    if (literal !== null) {
      sendError(
        req,
        res,
        400,
        'BAD_USER_INPUT',
        `${literal} is not well-formed Unicode (it holds half of a surrogate pair)`,
        { field: literal },
      );
      return true;
    }
  }
  const caller = req.caller;
  const holder = budgetHolder(caller, req.address);
  req.holder = holder;
  req.bounds = new RequestBounds(Math.max(operations.length, 1), {
    usersPerRequest: usersPerRequest(caller),
    anonymous: caller.role === 'anonymous',
    charge: (total) =>
      total.usersCreated === 0
        ? undefined
        : budgets.charge(holder, 'usersCreated', total.usersCreated),
  });
  return false;
}

/**
 * Once Apollo answered: when the request passed its bounds, answers the refusal (one error, with
 * its status) in place of Apollo's answer and returns true; nothing of it ran.
 */
export function sentRefusal(req: ServiceRequest, res: ServerResponse): boolean {
  const { refusal } = req.bounds;
  if (refusal === null) return false;
  if (refusal instanceof RateLimitedError) {
    res.setHeader('retry-after', String(refusal.retryAfter));
    sendError(
      req,
      res,
      refusal.status,
      refusal.code,
      refusal.message,
      rateLimitedExtensions(refusal),
    );
    return true;
  }
  sendError(req, res, refusal.status, refusal.code, refusal.message, {
    ...(refusal.field === undefined ? {} : { field: refusal.field }),
    ...(refusal.retryable === undefined ? {} : { retryable: refusal.retryable }),
  });
  return true;
}

/** What a RATE_LIMITED answer says besides its code: when to retry, and which budget. */
export function rateLimitedExtensions(refusal: RateLimitedError) {
  return { retryable: true, retryAfter: refusal.retryAfter, budget: refusal.budget };
}

/** The `type` body-parser hands on for a refusal of `verifyInputBounds`. */
const PAST_INPUT_BOUND = 'input.bounds';

/** A body's variables past an input bound, met on its raw bytes. */
class InputBoundsError extends Error {
  readonly status = 400;
  readonly type = PAST_INPUT_BOUND;

  constructor(readonly problem: InputProblem) {
    super(problem.message);
  }
}

/**
 * body-parser's `verify` hook: refuses a UTF-8 JSON body whose variables pass an input bound,
 * before it is parsed (other charsets are left to `refusedInput` on the parsed body).
 */
export function verifyInputBounds(
  _req: unknown,
  _res: unknown,
  body: Buffer,
  encoding: string | null,
): void {
  if (encoding !== null && !/^utf-?8$/i.test(encoding)) return;
  const problem = rawInputProblem(body);
  if (problem !== null) throw new InputBoundsError(problem);
}

interface BodyParserError {
  type?: unknown;
  status?: unknown;
  problem?: InputProblem;
  /** body-parser's `charset.unsupported`: the charset the request named. */
  charset?: unknown;
  /** body-parser's `encoding.unsupported`: the Content-Encoding the request named. */
  encoding?: unknown;
}

/** The longest header value an answer repeats; real charset and coding names are far shorter. */
const ECHOED_HEADER_CHARS = 40;

/** A header value as an answer quotes it: cut to ECHOED_HEADER_CHARS, marked when cut. */
function quoted(value: unknown): string {
  const text = String(value);
  return `"${text.length > ECHOED_HEADER_CHARS ? `${text.slice(0, ECHOED_HEADER_CHARS)}…` : text}"`;
}

/**
 * The answer to a failure of reading the body (body-parser's errors), or null for any other
 * error, which is the service's fault (500, logged).
 */
export function bodyErrorAnswer(
  err: unknown,
): { status: number; code: string; message: string; field?: string } | null {
  const { type, status, problem, charset, encoding } = (
    typeof err === 'object' && err !== null ? err : {}
  ) as BodyParserError;
  if (type === PAST_INPUT_BOUND && problem !== undefined) {
    return { status: 400, code: 'BAD_USER_INPUT', message: problem.message, field: problem.field };
  }
  if (type === 'entity.too.large') {
    return {
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      message: 'The request body is larger than this server accepts',
    };
  }
  if (type === 'entity.parse.failed') {
    return { status: 400, code: 'BAD_REQUEST', message: 'The request body is not valid JSON' };
  }
  if (type === 'charset.unsupported') {
    return {
      status: 415,
      code: 'BAD_REQUEST',
      message: `The body's charset ${quoted(charset)} is not supported: send JSON in UTF-8`,
    };
  }
  if (type === 'encoding.unsupported') {
    return {
      status: 415,
      code: 'BAD_REQUEST',
      message: `The body's Content-Encoding ${quoted(encoding)} is not supported: send it uncompressed, or gzip, deflate or br`,
    };
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, code: 'BAD_REQUEST', message: 'The request could not be read' };
  }
  return null;
}
