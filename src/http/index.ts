/** The HTTP face of the service: the request listener (on Node's http, no framework) and the server that runs it. */
export { createApp } from './app.js';
export type { AppDeps } from './app.js';
export { startHttpServer } from './server.js';
export type { HttpServerDeps, RunningHttpServer } from './server.js';
