/**
 * Starts tracing when the environment asks for it: the first import of src/main.ts, so the
 * instrumentations hook `http`, `graphql` and `mongodb` before anything requires them (the service
 * is CommonJS: they patch modules as `require` loads them).
 *
 * On when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_ENDPOINT`), unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 * Off, this module requires nothing of OpenTelemetry (test/telemetry/traces.test.ts checks the
 * module cache). On: the trace SDK with a batch processor and the OTLP/HTTP (JSON) exporter, which
 * reads the standard `OTEL_EXPORTER_OTLP_*` variables (endpoint, headers, timeout) itself;
 * W3C `traceparent` propagation (an incoming trace is continued); the http, graphql and mongodb
 * instrumentations. Probes and scrapes (`/health`, `/ready`, `/metrics`) are not traced: they
 * would drown the traces of requests. The service name is `OTEL_SERVICE_NAME` or `sequential-ids`.
 */
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type * as ExporterModule from '@opentelemetry/exporter-trace-otlp-http';
import type * as InstrumentationModule from '@opentelemetry/instrumentation';
import type * as GraphQLInstrumentationModule from '@opentelemetry/instrumentation-graphql';
import type * as HttpInstrumentationModule from '@opentelemetry/instrumentation-http';
import type * as MongoDBInstrumentationModule from '@opentelemetry/instrumentation-mongodb';
import type * as ResourcesModule from '@opentelemetry/resources';
import type * as TraceNodeModule from '@opentelemetry/sdk-trace-node';
import type { IncomingMessage } from 'node:http';
import { enableTracing } from './spans';

const UNTRACED_PATHS = new Set(['/health', '/ready', '/metrics']);

/** Whether `env` asks for traces. */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return (
    endpoint !== undefined &&
    endpoint.trim() !== '' &&
    env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' &&
    env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() !== 'none'
  );
}

/* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on, and
   synchronously: the instrumentations must hook before main.ts's next import runs. */
function startTracing(env: NodeJS.ProcessEnv): void {
  const api = require('@opentelemetry/api') as typeof OpenTelemetryApi;
  const { NodeTracerProvider, BatchSpanProcessor } =
    require('@opentelemetry/sdk-trace-node') as typeof TraceNodeModule;
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof ExporterModule;
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof ResourcesModule;
  const { registerInstrumentations } =
    require('@opentelemetry/instrumentation') as typeof InstrumentationModule;
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof HttpInstrumentationModule;
  const { GraphQLInstrumentation } =
    require('@opentelemetry/instrumentation-graphql') as typeof GraphQLInstrumentationModule;
  const { MongoDBInstrumentation } =
    require('@opentelemetry/instrumentation-mongodb') as typeof MongoDBInstrumentationModule;

  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME?.trim() || 'sequential-ids',
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req: IncomingMessage) =>
          UNTRACED_PATHS.has((req.url ?? '/').split('?')[0]),
      }),
      // One span per resolver of a field that has one (not per scalar read), lists merged.
      new GraphQLInstrumentation({ ignoreTrivialResolveSpans: true, mergeItems: true }),
      new MongoDBInstrumentation(),
    ],
  });
  enableTracing({
    api,
    tracer: api.trace.getTracer('sequential-ids'),
    shutdown: () => provider.shutdown(),
  });
}
/* eslint-enable @typescript-eslint/no-require-imports */

if (tracingRequested(process.env)) startTracing(process.env);
