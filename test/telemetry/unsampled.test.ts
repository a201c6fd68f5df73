/**
 * A request the sampler leaves out, in the service's own process: its work runs with no span
 * active (what the mongodb instrumentation's `requireParentSpan` reads to skip a command before
 * building its attributes and text), with tracing suppressed (so no instrumentation starts a trace
 * of its own), and still under its trace id (its request id). A sampled request's work runs in
 * its recording server span, and `inSpan` makes a child of it. The SDK runs here with an
 * in-memory exporter (src/telemetry/start.ts starts the same provider with an OTLP one).
 */
import * as api from '@opentelemetry/api';
import { isTracingSuppressed, suppressTracing } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { ServerResponse, IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import {
  activeTraceId,
  enableTracing,
  inServerSpan,
  inSpan,
  stopTracing,
} from '../../src/telemetry/index';

const exporter = new InMemorySpanExporter();

beforeAll(() => {
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  enableTracing({
    api,
    tracer: api.trace.getTracer('test'),
    suppressTracing,
    shutdown: () => provider.shutdown(),
  });
});

afterAll(() => stopTracing());

/** A request with `traceparent`, and its response, as the HTTP server hands them over. */
function requestWith(traceparent: string) {
  const req = new IncomingMessage(new Socket());
  req.method = 'POST';
  req.headers = { traceparent };
  return { req, res: new ServerResponse(req) };
}

/** What the request's work saw, while it ran. */
interface Seen {
  activeSpan: api.Span | undefined;
  activeSpanRecording: boolean | undefined;
  suppressed: boolean;
  traceId: string | undefined;
  childSpanRecording: boolean | undefined;
}

async function serve(traceparent: string): Promise<Seen> {
  const { req, res } = requestWith(traceparent);
  let seen: Seen | undefined;
  await inServerSpan(req, res, { path: '/graphql', route: '/graphql' }, async () => {
    const activeSpan = api.trace.getActiveSpan();
    const suppressed = isTracingSuppressed(api.context.active());
    await new Promise((resolve) => setImmediate(resolve));
    const childSpanRecording = await inSpan('transaction', {}, async (span) => span?.isRecording());
    seen = {
      activeSpan,
      activeSpanRecording: activeSpan?.isRecording(),
      suppressed,
      traceId: activeTraceId(),
      childSpanRecording,
    };
  });
  return seen as Seen;
}

test("an unsampled request runs with no span active and tracing suppressed, under the caller's trace id", async () => {
  exporter.reset();
  const traceId = '7af7651916cd43dd8448eb211c80319a';
  const seen = await serve(`00-${traceId}-b7ad6b7169203337-00`);
  expect(seen.activeSpan).toBeUndefined();
  expect(seen.suppressed).toBe(true);
  expect(seen.traceId).toBe(traceId);
  expect(seen.childSpanRecording).toBeUndefined();
  expect(exporter.getFinishedSpans()).toEqual([]);
});

test('a sampled request runs in its recording server span; inSpan records a child of it', async () => {
  exporter.reset();
  const traceId = '8af7651916cd43dd8448eb211c80319a';
  const seen = await serve(`00-${traceId}-b7ad6b7169203338-01`);
  expect(seen.activeSpanRecording).toBe(true);
  expect(seen.suppressed).toBe(false);
  expect(seen.traceId).toBe(traceId);
  expect(seen.childSpanRecording).toBe(true);
  const spans = exporter.getFinishedSpans();
  const server = spans.find((span) => span.name === 'POST /graphql');
  const transaction = spans.find((span) => span.name === 'transaction');
  expect(server?.spanContext().traceId).toBe(traceId);
  expect(transaction?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
});

test('outside any request, inSpan records nothing and has no trace id', async () => {
  exporter.reset();
  expect(await inSpan('transaction', {}, async (span) => span)).toBeUndefined();
  expect(activeTraceId()).toBeUndefined();
  expect(exporter.getFinishedSpans()).toEqual([]);
});
