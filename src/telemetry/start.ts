/**
 * Starts tracing when the environment asks for it: the first import of src/main.ts, so the
 * instrumentations hook `graphql` and `mongodb` before anything requires them (the service is
 * CommonJS: they patch modules as `require` loads them).
 *
 * On when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_ENDPOINT`), unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 * Off, this module requires nothing of OpenTelemetry (test/telemetry/traces.test.ts checks the
 * module cache). On: the trace SDK with a batch processor and the OTLP/HTTP (JSON) exporter, which
 * reads the standard `OTEL_EXPORTER_OTLP_*` variables (endpoint, headers, timeout) itself, and the
 * SDK the standard `OTEL_TRACES_SAMPLER` ones; W3C `traceparent` propagation (an incoming trace is
 * continued). The spans: the HTTP request's is the service's own (./spans.ts `inServerSpan`); the
 * GraphQL operation's and each MongoDB command's come from the graphql and mongodb
 * instrumentations, without a span per resolver (the operation's span carries the service's
 * facts) and with ./command-text.ts as the commands' `db.query.text`; a command outside any
 * request's span (a probe's ping, index checks) has none, nor has anything of a request the
 * sampler left out. The service name is `OTEL_SERVICE_NAME`
 * or `sequential-ids`.
 */
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type * as CoreModule from '@opentelemetry/core';
import type * as ExporterModule from '@opentelemetry/exporter-trace-otlp-http';
import type * as InstrumentationModule from '@opentelemetry/instrumentation';
import type * as GraphQLInstrumentationModule from '@opentelemetry/instrumentation-graphql';
import type * as MongoDBInstrumentationModule from '@opentelemetry/instrumentation-mongodb';
import type * as ResourcesModule from '@opentelemetry/resources';
import type * as TraceNodeModule from '@opentelemetry/sdk-trace-node';
import { commandText } from './command-text';
import { enableTracing } from './spans';

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
  const { suppressTracing } = require('@opentelemetry/core') as typeof CoreModule;
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof ExporterModule;
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof ResourcesModule;
  const { registerInstrumentations } =
    require('@opentelemetry/instrumentation') as typeof InstrumentationModule;
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
      new GraphQLInstrumentation({ ignoreResolveSpans: true }),
      new MongoDBInstrumentation({ requireParentSpan: true, dbStatementSerializer: commandText }),
    ],
  });
  enableTracing({
    api,
    tracer: api.trace.getTracer('sequential-ids'),
    suppressTracing,
    shutdown: () => provider.shutdown(),
  });
}
/* eslint-enable @typescript-eslint/no-require-imports */

if (tracingRequested(process.env)) startTracing(process.env);
