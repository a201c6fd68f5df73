/**
 * `node --import ./bench/tracing-floors/als-per-request.mjs dist/main.js`: the service with
 * tracing off, each HTTP request served inside an `AsyncLocalStorage.run` of its own and nothing
 * else of OpenTelemetry: what carrying a context through a request's promises costs on this Node
 * (docs/operations.md, "Traces").
 */
import http from 'node:http';
import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage();
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function emitInContext(event, ...args) {
  if (event !== 'request') return emit.call(this, event, ...args);
  return storage.run({ request: args[0] }, () => emit.call(this, event, ...args));
};
