/** The HTTP face of the service: the request listener (on Node's http, no framework) and the server that runs it. */
export { createApp } from './app';
export type { AppDeps } from './app';
export { startHttpServer } from './server';
export type { HttpServerDeps, RunningHttpServer } from './server';
