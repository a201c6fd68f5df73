/**
 * HTTP-level limits in front of GraphQL, each answering with a 4xx (or 503 for time) and a
 * GraphQL-shaped error body, never a 500:
 * - at most BATCHED_OPERATIONS operations in one batched (array) request (`refusedBatch`): 400;
 * - the body size limit of body-parser's `json` (BODY_LIMIT): 413 PAYLOAD_TOO_LARGE; malformed JSON: 400;
 * - the whole request, body upload included, bounded by REQUEST_TIMEOUT_MS (`startDeadline`): at
 *   the deadline the request's budget aborts (domain writes and root fields check it) and the client
 *   gets 503 SERVICE_UNAVAILABLE with `retryable: true`; a request whose body arrives after that is
 *   never executed;
 * - what the whole request asks for, over every alias and batched operation (`refusedBounds`, read
 *   by src/graphql/request-plan.ts before anything runs): at most `usersPerRequest(caller)` users
 *   created (src/auth: one without a token in production, else 1,000), at most
 *   ALLOCATIONS_PER_REQUEST `allocateSequence` calls, at most LISTED_ITEMS_PER_REQUEST items
 *   listed by its pages (so `/health` never waits behind one request's serialisation), and no
 *   string argument that is not well-formed Unicode (400 BAD_USER_INPUT naming it). An operation
 *   sent as an APQ hash alone is planned from the document registered under that hash; a hash
 *   with none is answered PERSISTED_QUERY_NOT_FOUND here, as Apollo would, so that a document
 *   registered by a concurrent request between this check and Apollo's lookup never runs unplanned.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { usersPerRequest, type Caller } from '../auth/index.js';
import {
  ALLOCATIONS_PER_REQUEST,
  BATCHED_OPERATIONS,
  LISTED_ITEMS_PER_REQUEST,
} from '../limits.js';
import { startRequestBudget, type RequestBudget } from '../graphql/budget.js';
import { planRequest, type RequestedOperation } from '../graphql/request-plan.js';
import type { PersistedQueries } from '../graphql/server.js';

/**
 * A request as the HTTP layer knows it before GraphQL runs: who is calling (src/auth, once per
 * request), its budget (the deadline) and, once read, its JSON body.
 */
export interface ServiceRequest extends IncomingMessage {
  caller: Caller;
  budget: RequestBudget;
  body?: unknown;
}

/** Answers `status` with a JSON body (with its length, so the connection can stay open). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  extensions: Record<string, unknown> = {},
): void {
  sendJson(res, status, { errors: [{ message, extensions: { code, ...extensions } }] });
}

/** Answers 400 and returns true for a batch of more than BATCHED_OPERATIONS operations. */
export function refusedBatch(req: ServiceRequest, res: ServerResponse): boolean {
  if (!Array.isArray(req.body) || req.body.length <= BATCHED_OPERATIONS) return false;
  sendError(
    res,
    400,
    'BAD_REQUEST',
    `A batched request may hold at most ${BATCHED_OPERATIONS} operations`,
  );
  return true;
}

/** Starts the request's budget (`req.budget`), before the body is read. */
export function startDeadline(req: ServiceRequest, res: ServerResponse, timeoutMs: number): void {
  const budget = startRequestBudget(timeoutMs, (reason) => {
    if (!res.headersSent) {
      sendError(res, 503, 'SERVICE_UNAVAILABLE', reason.message, { retryable: true });
    }
  });
  req.budget = budget;
  // A response emits 'close' once answered, and when its connection goes first.
  res.once('close', budget.end);
}

type ReceivedOperation = RequestedOperation & { extensions?: unknown };

/** Parsed from a GET query string's JSON parameter; Apollo refuses what does not parse. */
function parsedParameter(value: unknown): unknown {
  try {
    return typeof value === 'string' ? JSON.parse(value) : undefined;
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
  const parameter = (name: string) => params.get(name) ?? undefined;
  return [
    {
      query: parameter('query'),
      operationName: parameter('operationName'),
      variables: parsedParameter(parameter('variables')),
      extensions: parsedParameter(parameter('extensions')),
    },
  ];
}

/**
 * The hash of an operation sent as an APQ hash (version 1) without its document, else null. Apollo
 * refuses other versions before any lookup, so those are left to it.
 */
function persistedHashOf(operation: ReceivedOperation): string | null {
  if (typeof operation.query === 'string') return null;
  const { extensions } = operation;
  const persisted =
    typeof extensions === 'object' && extensions !== null
      ? (extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } })
          .persistedQuery
      : undefined;
  if (typeof persisted !== 'object' || persisted === null || persisted.version !== 1) return null;
  return typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash : null;
}

/** The operations with each APQ hash replaced by its registered document; null if one has none. */
async function withPersistedDocuments(
  operations: ReceivedOperation[],
  persistedQueries: PersistedQueries,
): Promise<RequestedOperation[] | null> {
  const resolved: RequestedOperation[] = [];
  for (const operation of operations) {
    const hash = persistedHashOf(operation);
    if (hash === null) {
      resolved.push(operation);
      continue;
    }
    const query = await persistedQueries.get(hash);
    if (query === undefined) return null;
    resolved.push({ ...operation, query });
  }
  return resolved;
}

/**
 * After the body is read: answers and returns true when the whole request asks for more than its
 * bounds, or when the deadline already answered it (then it must never run).
 */
export async function refusedBounds(
  req: ServiceRequest,
  res: ServerResponse,
  search: string,
  maxTokens: number,
  persistedQueries: PersistedQueries,
): Promise<boolean> {
  if (req.budget.signal.aborted) return true;
  const operations = await withPersistedDocuments(operationsOf(req, search), persistedQueries);
  if (operations === null) {
    sendError(res, 200, 'PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
    return true;
  }
  if (req.budget.signal.aborted) return true;
  const plan = planRequest(operations, maxTokens);
  const caller = req.caller;
  const maxUsers = usersPerRequest(caller);
  if (plan.malformedString !== null) {
    sendError(
      res,
      400,
      'BAD_USER_INPUT',
      `${plan.malformedString} is not well-formed Unicode (it holds half of a surrogate pair)`,
      { field: plan.malformedString },
    );
  } else if (plan.usersCreated > maxUsers && caller.role === 'anonymous') {
    sendError(
      res,
      401,
      'UNAUTHENTICATED',
      `Creating more than ${maxUsers} user in one request needs a client or admin token (Authorization: Bearer <token>)`,
    );
  } else if (plan.usersCreated > maxUsers) {
    sendError(
      res,
      400,
      'BAD_USER_INPUT',
      `One request may create at most ${maxUsers} users in total, over all its aliases and batched operations; this one asks for ${plan.usersCreated}`,
      { field: 'inputs' },
    );
  } else if (plan.listedItems > LISTED_ITEMS_PER_REQUEST) {
    sendError(
      res,
      400,
      'BAD_USER_INPUT',
      `One request may list at most ${LISTED_ITEMS_PER_REQUEST} items over all its pages (page sizes multiplied through nesting, over every alias and batched operation); this one may list ${plan.listedItems}: ask for smaller pages`,
      { field: 'first' },
    );
  } else if (plan.sequenceAllocations > ALLOCATIONS_PER_REQUEST) {
    sendError(
      res,
      400,
      'BAD_USER_INPUT',
      `One request may call allocateSequence at most ${ALLOCATIONS_PER_REQUEST} times, over all its aliases and batched operations; this one asks for ${plan.sequenceAllocations}`,
      { field: 'count' },
    );
  } else return false;
  return true;
}

interface BodyParserError {
  type?: unknown;
  status?: unknown;
}

/**
 * The answer to a failure of reading the body (body-parser's errors), or null for any other
 * error, which is the service's fault (500, logged).
 */
export function bodyErrorAnswer(
  err: unknown,
): { status: number; code: string; message: string } | null {
  const { type, status } = (typeof err === 'object' && err !== null ? err : {}) as BodyParserError;
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
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, code: 'BAD_REQUEST', message: 'The request could not be read' };
  }
  return null;
}
