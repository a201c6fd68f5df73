/**
 * Each request's id (an HTTP request, a WebSocket operation), and the trace id its log lines carry.
 *
 * Which id: while tracing is on, the trace id of the request's span (the caller's, when it sent a
 * `traceparent`): one id finds the request's log lines, its error answers and its trace. While it is
 * off: an `X-Request-Id` the caller sent, when it is short and plain (a gateway's or load
 * balancer's id: the same request keeps one id across hops), else a fresh UUID. An incoming id
 * is only a label: it is never trusted for anything else, and one that could break a log line or
 * a header (spaces, quotes, control characters, more than 64 characters) is replaced. The trace id
 * of a `traceparent` the caller sent is logged even while tracing is off.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { activeTraceId } from './spans';
import { traceIdOfHeader } from './trace-context';

/** The header an answer carries its request id in, and an incoming id is read from. */
export const REQUEST_ID_HEADER = 'x-request-id';
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export interface RequestIds {
  requestId: string;
  /** The trace the request belongs to, when there is one. */
  traceId?: string;
}

/** The ids of a request with `headers`, in the span of that request when tracing is on. */
export function requestIdsOf(headers: IncomingHttpHeaders): RequestIds {
  const traced = activeTraceId();
  if (traced !== undefined) return { requestId: traced, traceId: traced };
  const incoming = headers[REQUEST_ID_HEADER];
  const requestId =
    typeof incoming === 'string' && ACCEPTED_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  const traceId = traceIdOfHeader(headers.traceparent);
  return traceId === undefined ? { requestId } : { requestId, traceId };
}
