/**
 * The service's side of its traces: whether tracing runs, the span active now, and the facts the
 * service adds to it. ./index.ts says the contract.
 */
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Attributes, Context, Span, SpanContext, Tracer } from '@opentelemetry/api';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type { Span };

export interface ActiveTracing {
  api: typeof OpenTelemetryApi;
  tracer: Tracer;
  /** `context` with every span started in it left unrecorded at once (the SDK's own switch). */
  suppressTracing(context: Context): Context;
  /** Ends the SDK: exports the spans still buffered. */
  shutdown(): Promise<void>;
}

let tracing: ActiveTracing | null = null;

/**
 * The context key under which a request the sampler left out keeps its span context (its trace
 * id), with no span active (`inServerSpan` says why). A symbol, as the API's `createContextKey`
 * makes them: the API itself is loaded only while tracing is on.
 */
const UNSAMPLED_REQUEST = Symbol.for('sequential_ids.unsampled_request');

/** Called once by ./start.ts when the SDK runs. */
export function enableTracing(active: ActiveTracing): void {
  tracing = active;
}

/** Exports what is buffered and stops tracing (a clean shutdown); nothing while it is off. */
export async function stopTracing(): Promise<void> {
  const active = tracing;
  tracing = null;
  await active?.shutdown();
}

export function tracingEnabled(): boolean {
  return tracing !== null;
}

/**
 * The trace id of the span active here (or of the request the sampler left out that is served
 * here), or undefined while tracing is off (or outside a request).
 */
export function activeTraceId(): string | undefined {
  if (tracing === null) return undefined;
  const { api } = tracing;
  const active = api.context.active();
  const context =
    api.trace.getSpan(active)?.spanContext() ??
    (active.getValue(UNSAMPLED_REQUEST) as SpanContext | undefined);
  return context !== undefined && api.isSpanContextValid(context) ? context.traceId : undefined;
}

/** Sets `attributes` on the span active here (nothing while tracing is off). */
export function annotateActiveSpan(attributes: Attributes): void {
  tracing?.api.trace.getActiveSpan()?.setAttributes(attributes);
}

/**
 * Records that a budget refused work (a rate limit, a per-request bound): an event named
 * `budget.refused` on the span active here with the budget's name and what it says, and
 * `budget.refused` set on the span. Nothing while tracing is off.
 */
export function recordBudgetRefusal(budget: string, attributes: Attributes = {}): void {
  const span = tracing?.api.trace.getActiveSpan();
  if (span === undefined) return;
  span.addEvent('budget.refused', { 'budget.name': budget, ...attributes });
  span.setAttribute('budget.refused', budget);
}

/**
 * Runs `work` in a span of its own named `name` (a child of the span active here), ended when the
 * work settles; a failure is recorded on it. While tracing is off, or outside a recorded span (a
 * request the sampler left out), it just runs `work`.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (tracing === null || tracing.api.trace.getActiveSpan()?.isRecording() !== true) {
    return work(undefined);
  }
  const { api, tracer } = tracing;
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: api.SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Where a traced HTTP request went: its path, and the route that served it (low-cardinality). */
export interface ServedTarget {
  path: string;
  route: string;
}

/**
 * Runs `work`, the serving of one HTTP request, in the request's server span: a child of the
 * caller's span when the request carries a W3C `traceparent` (else the root of a trace of its
 * own), named `METHOD route`, with the attributes OpenTelemetry's HTTP server conventions require
 * and the answer's status once `work` settles (an error status from 500 on, as the conventions
 * say of a server span). While tracing is off it just runs `work`.
 *
 * A request the sampler leaves out (`OTEL_TRACES_SAMPLER`; a caller's unsampled `traceparent`)
 * keeps its trace id (its request id, its log lines) but is served with tracing suppressed and
 * with no span active, its span context kept under a key of the service's own: its operation and
 * commands would be left out too (their sampling follows their parent), and being asked for their
 * spans costs the instrumentations most of what recording them costs. With no span active, the
 * mongodb instrumentation (`requireParentSpan`) skips a command before it builds its attributes
 * and text, and `inSpan` starts no span; with one, even a non-recording one, they do that work for
 * nothing. (The graphql instrumentation still makes its non-recording operation span the active
 * one, so the commands inside the operation are still described, then dropped.)
 *
 * Why the service's own span rather than @opentelemetry/instrumentation-http: that instrumentation
 * binds the trace context to every listener of the request and the response, patches outgoing
 * requests too, and reads a score of attributes from headers and sockets; one span with the
 * required attributes is what the trace needs (the cost is in docs/operations.md, "Traces").
 */
export function inServerSpan(
  req: IncomingMessage,
  res: ServerResponse,
  target: ServedTarget,
  work: () => Promise<void>,
): Promise<void> {
  if (tracing === null) return work();
  const { api, tracer } = tracing;
  const caller = api.propagation.extract(api.ROOT_CONTEXT, req.headers);
  const method = req.method ?? 'GET';
  const span = tracer.startSpan(
    `${method} ${target.route}`,
    {
      kind: api.SpanKind.SERVER,
      attributes: {
        'http.request.method': method,
        'http.route': target.route,
        'url.path': target.path,
        'url.scheme': 'http',
      },
    },
    caller,
  );
  const served = span.isRecording()
    ? api.trace.setSpan(caller, span)
    : tracing.suppressTracing(api.ROOT_CONTEXT.setValue(UNSAMPLED_REQUEST, span.spanContext()));
  return api.context.with(served, work).finally(() => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) {
      span.setAttribute('error.type', String(res.statusCode));
      span.setStatus({ code: api.SpanStatusCode.ERROR });
    }
    span.end();
  });
}
