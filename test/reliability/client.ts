/**
 * The reliability suites' HTTP client: real `fetch` against the real server, and the two creation
 * mutations read into outcomes the suites can tally.
 *
 * Invariants: every request is bounded (`HANG_LIMIT_MS` unless the caller gives a tighter bound),
 * so a hanging service fails the test instead of stalling it; a response that is not JSON is kept
 * as text, never thrown away, so a 500 page or a proxy error shows up in the assertion message.
 * Expected failures arrive as data (`error { code }` of the payload or item, API 0.2); request-level
 * ones (SERVICE_UNAVAILABLE, authentication) as top-level errors: an item's code is read from both.
 */
import type { IdStrategy } from '../../src/strategies';

export type Strategy = IdStrategy;

export interface UserInput {
  name: string;
  email?: string;
  idempotencyKey?: string;
}

export interface HttpResult {
  status: number;
  /** Parsed JSON when the body was JSON, else the raw text. */
  body: unknown;
  elapsedMs: number;
}

interface GraphQLErrorLike {
  message?: string;
  extensions?: { code?: string; field?: string };
}

export interface GraphQLResultLike {
  data?: Record<string, unknown> | null;
  errors?: GraphQLErrorLike[];
}

const HANG_LIMIT_MS = 30_000;

export async function sendHttp(
  url: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<HttpResult> {
  const started = performance.now();
  const response = await fetch(url, {
    ...init,
    signal: AbortSignal.timeout(init.timeoutMs ?? HANG_LIMIT_MS),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: keep the text so the assertion shows what came back.
  }
  return { status: response.status, body, elapsedMs: performance.now() - started };
}

export function postGraphQL(
  serviceUrl: string,
  query: string,
  variables?: object,
  options: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpResult> {
  return sendHttp(`${serviceUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify({ query, variables }),
    timeoutMs: options.timeoutMs,
  });
}

/** The `extensions.code` of every top-level GraphQL error in a response body. */
export function errorCodes(body: unknown): string[] {
  const errors = (body as GraphQLResultLike | null)?.errors;
  return Array.isArray(errors) ? errors.map((e) => e.extensions?.code ?? '(no code)') : [];
}

export const CREATE_USER = /* GraphQL */ `
  mutation CreateUser($input: CreateUserInput!, $strategy: IdStrategy) {
    createUser(input: $input, strategy: $strategy) {
      user {
        id
        name
      }
      attempts
      replayed
      error {
        code
        field
        retryable
      }
    }
  }
`;

export const CREATE_USERS = /* GraphQL */ `
  mutation CreateUsers($inputs: [CreateUserInput!]!, $strategy: IdStrategy) {
    createUsers(inputs: $inputs, strategy: $strategy) {
      error {
        code
      }
      results {
        index
        user {
          id
          name
        }
        error {
          code
          field
        }
      }
    }
  }
`;

/** One input's outcome: the user it got, or the code of the error it got. */
export type ItemOutcome =
  | { user: { id: string; name: string }; replayed: boolean; code: null }
  | { user: null; replayed: false; code: string };

export interface CreationResult {
  http: HttpResult;
  /** One per input, in input order. */
  items: ItemOutcome[];
}

/**
 * Every item failed with one code: the payload's own `error` (errors as data) when there is one,
 * else the first top-level error (request-level failures), else the HTTP status.
 */
function failedItems(
  count: number,
  http: HttpResult,
  error?: { code: string } | null,
): ItemOutcome[] {
  const code = error?.code ?? errorCodes(http.body)[0] ?? `HTTP_${http.status}`;
  return Array.from({ length: count }, () => ({ user: null, replayed: false, code }));
}

export async function createUser(
  serviceUrl: string,
  input: UserInput,
  strategy: Strategy,
  options: { timeoutMs?: number } = {},
): Promise<CreationResult> {
  const http = await postGraphQL(serviceUrl, CREATE_USER, { input, strategy }, options);
  const payload = (http.body as GraphQLResultLike | null)?.data?.createUser as
    | {
        user: { id: string; name: string } | null;
        replayed: boolean | null;
        error: { code: string } | null;
      }
    | null
    | undefined;
  if (!payload?.user) return { http, items: failedItems(1, http, payload?.error) };
  return {
    http,
    items: [{ user: payload.user, replayed: payload.replayed === true, code: null }],
  };
}

export async function createUsers(
  serviceUrl: string,
  inputs: UserInput[],
  strategy: Strategy,
  options: { timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<CreationResult> {
  const http = await postGraphQL(serviceUrl, CREATE_USERS, { inputs, strategy }, options);
  const payload = (http.body as GraphQLResultLike | null)?.data?.createUsers as
    | {
        error: { code: string } | null;
        results: Array<{
          index: number;
          user: { id: string; name: string } | null;
          error: { code: string } | null;
        }>;
      }
    | null
    | undefined;
  if (!payload || payload.error) {
    return { http, items: failedItems(inputs.length, http, payload?.error) };
  }
  const items: ItemOutcome[] = payload.results.map((r) =>
    r.user
      ? { user: r.user, replayed: false, code: null }
      : { user: null, replayed: false, code: r.error?.code ?? '(no code)' },
  );
  return { http, items };
}

export type CreationOperation = 'createUser' | 'createUsers';

/** `createUser` with the one input, or `createUsers` with all of them. */
export function sendCreation(
  serviceUrl: string,
  operation: CreationOperation,
  inputs: UserInput[],
  strategy: Strategy,
  options: { timeoutMs?: number } = {},
): Promise<CreationResult> {
  return operation === 'createUser'
    ? createUser(serviceUrl, inputs[0], strategy, options)
    : createUsers(serviceUrl, inputs, strategy, options);
}
