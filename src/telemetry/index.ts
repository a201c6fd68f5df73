/**
 * Traces: the server span each traced HTTP request is served in (`inServerSpan`, the parent of
 * everything the request does), what the rest of the service calls to put its own facts on the
 * trace of a request (strategy, ids taken, transaction retries, turns waited, budget refusals),
 * and the trace id its request ids and log lines carry.
 *
 * Contract: tracing is off unless src/telemetry/start.ts found an OTLP endpoint in the environment
 * at process start (docs/operations.md, "Traces"); while it is off, nothing of OpenTelemetry is
 * loaded by it (it imports OpenTelemetry's types only) and every function here returns after one check of
 * a module variable, so the request path pays nothing for it. Once on, `enableTracing` is called
 * once, before the first request, with the API the SDK registered.
 */
export {
  activeTraceId,
  annotateActiveSpan,
  enableTracing,
  inServerSpan,
  inSpan,
  recordBudgetRefusal,
  stopTracing,
  tracingEnabled,
  type ActiveTracing,
  type ServedTarget,
  type Span,
} from './spans';
export { traceIdOfHeader } from './trace-context';
export { REQUEST_ID_HEADER, requestIdsOf, type RequestIds } from './request-ids';
