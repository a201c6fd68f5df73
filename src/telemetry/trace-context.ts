/**
 * The W3C Trace Context header a request arrives with, read without OpenTelemetry: while tracing
 * is off the service still logs the trace id a caller sent, so its log lines can be found from the
 * caller's trace.
 */

/** `version-traceid-parentid-flags`, lower-case hex (W3C Trace Context, level 1). */
const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;
const INVALID_TRACE_ID = '0'.repeat(32);

/** The trace id of a `traceparent` header, or undefined when there is none or it is malformed. */
export function traceIdOfHeader(traceparent: string | string[] | undefined): string | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const traceId = TRACEPARENT.exec(traceparent.trim())?.[1];
  return traceId === INVALID_TRACE_ID ? undefined : traceId;
}
