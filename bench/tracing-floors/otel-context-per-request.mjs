/**
 * `node --import ./bench/tracing-floors/otel-context-per-request.mjs dist/main.js`: the service
 * with tracing off, each HTTP request served in a context of its own made by OpenTelemetry's
 * context manager (the SDK's), with no span: the floor under tracing (docs/operations.md,
 * "Traces").
 */
import http from 'node:http';
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const REQUEST = api.createContextKey('request');
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function emitInContext(event, ...args) {
  if (event !== 'request') return emit.call(this, event, ...args);
  const served = api.ROOT_CONTEXT.setValue(REQUEST, args[0]);
  return api.context.with(served, () => emit.call(this, event, ...args));
};
