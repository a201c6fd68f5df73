/**
 * The HTTP status of a GraphQL answer, as the GraphQL-over-HTTP spec asks for the media type the
 * client accepts (graphql-http's audits check it).
 *
 * Apollo Server answers a document that fails to parse, fails validation or has variables that
 * cannot be coerced with 400 whatever the client accepts. That is right for
 * `application/graphql-response+json` (the spec's MUST), but a client that accepts only
 * `application/json` SHOULD get 200 for every well-formed request, errors in the body: legacy
 * clients read the body only on 200. So those three answers, and only those, become 200 when the
 * client asked for `application/json` and not for the newer type. A request without an `Accept`
 * header keeps Apollo's 400 (existing clients and this service's tests rely on it), as do the
 * HTTP layer's own refusals (bounds, body, CSRF), which never reach here.
 */

/** The codes Apollo gives a request error of the document or its variables. */
const REQUEST_ERROR_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
]);

/** True when `accept` names `application/json` and not `application/graphql-response+json`. */
function acceptsOnlyPlainJson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const types = accept.split(',').map((type) => type.split(';')[0].trim().toLowerCase());
  return types.includes('application/json') && !types.includes('application/graphql-response+json');
}

/** The status to send for Apollo's `status` and complete `body` answering a request with `accept`. */
export function graphqlStatus(status: number, body: string, accept: string | undefined): number {
  if (status !== 400 || !acceptsOnlyPlainJson(accept)) return status;
  let answer: { data?: unknown; errors?: Array<{ extensions?: { code?: unknown } }> };
  try {
    answer = JSON.parse(body) as typeof answer;
  } catch {
    return status;
  }
  const errors = answer.errors ?? [];
  const requestErrorsOnly =
    answer.data === undefined &&
    errors.length > 0 &&
    errors.every((error) => REQUEST_ERROR_CODES.has(String(error.extensions?.code)));
  return requestErrorsOnly ? 200 : status;
}
