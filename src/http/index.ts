/** The HTTP face of the service: the express app and the server that runs it. */
export { createApp } from './app.js';
export type { AppDeps } from './app.js';
export { startHttpServer } from './server.js';
export type { HttpServerDeps, RunningHttpServer } from './server.js';
