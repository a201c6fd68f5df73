/**
 * Which browser origins may call the API.
 *
 * Decision: the list is exactly CORS_ORIGINS ("*" allows any origin). Unset, no other origin is
 * allowed, in any environment; outside production the embedded Apollo Sandbox's origin is added so
 * the landing page works. Same-origin requests and non-browser clients are not affected by CORS.
 */
import type { CorsOptions } from 'cors';
import type { IncomingMessage } from 'node:http';
import type { Config } from '../config';

/** The origin the embedded Sandbox (landing page) sends its requests from. */
const SANDBOX_ORIGIN = 'https://sandbox.embed.apollographql.com';

function allowedOrigins(config: Pick<Config, 'CORS_ORIGINS' | 'NODE_ENV'>): string[] | '*' {
  if (config.CORS_ORIGINS.includes('*')) return '*';
  const origins = config.CORS_ORIGINS.map((origin) => new URL(origin).origin);
  return config.NODE_ENV === 'production' ? origins : [...origins, SANDBOX_ORIGIN];
}

export function corsOptions(config: Pick<Config, 'CORS_ORIGINS' | 'NODE_ENV'>): CorsOptions {
  const origins = allowedOrigins(config);
  return {
    origin: origins === '*' ? true : origins,
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: [
      'content-type',
      'authorization',
      'apollo-require-preflight',
      'x-apollo-operation-name',
      // Apollo Client 4 names itself in every request (client awareness).
      'apollographql-client-name',
      'apollographql-client-version',
    ],
    maxAge: 600,
  };
}

/**
 * Whether a WebSocket upgrade may proceed: browsers apply no CORS to WebSockets, so any page could
 * otherwise open a subscription to a service its visitor can reach (outside production callers
 * without a token may subscribe). The same origins as CORS are let in, plus the service's own
 * origin (the Sandbox and the explorer served by it) and upgrades without `Origin` (not a browser).
 */
export function upgradeOriginCheck(
  config: Pick<Config, 'CORS_ORIGINS' | 'NODE_ENV'>,
): (req: IncomingMessage) => boolean {
  const origins = allowedOrigins(config);
  return (req) => {
    const origin = req.headers.origin;
    if (origin === undefined || origins === '*') return true;
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      return false;
    }
    return host === req.headers.host || origins.includes(origin);
  };
}
