/**
 * HTTP-level limits in front of GraphQL, each answering with a 4xx (or 503 for time) and a
 * GraphQL-shaped error body, never a 500:
 * - at most MAX_BATCH_OPERATIONS operations in one batched (array) request: 400 BAD_REQUEST;
 * - the body size limit of `express.json` (BODY_LIMIT): 413 PAYLOAD_TOO_LARGE; malformed JSON: 400;
 * - a request that has not been answered within REQUEST_TIMEOUT_MS: 503 SERVICE_UNAVAILABLE, so no
 *   client waits past the limit even when a request chains several bounded database calls.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from '../logger.js';

const MAX_BATCH_OPERATIONS = 10;

function sendError(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ errors: [{ message, extensions: { code } }] });
}

export const batchLimit: RequestHandler = (req, res, next) => {
  if (Array.isArray(req.body) && req.body.length > MAX_BATCH_OPERATIONS) {
    sendError(
      res,
      400,
      'BAD_REQUEST',
      `A batched request may hold at most ${MAX_BATCH_OPERATIONS} operations`,
    );
    return;
  }
  next();
};

export function requestTimeout(timeoutMs: number): RequestHandler {
  return (_req, res, next) => {
    const timer = setTimeout(() => {
      if (!res.headersSent) {
        sendError(
          res,
          503,
          'SERVICE_UNAVAILABLE',
          `The request did not complete within ${timeoutMs} ms; retry it`,
        );
      }
    }, timeoutMs);
    const clear = () => clearTimeout(timer);
    res.on('finish', clear);
    res.on('close', clear);
    next();
  };
}

interface BodyParserError {
  type?: unknown;
  status?: unknown;
}

export function jsonErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (res.headersSent) {
      // Already answered (the request timeout fired first): the late failure has no one to tell.
      if (!res.writableEnded) res.end();
      return;
    }
    const { type, status } = (
      typeof err === 'object' && err !== null ? err : {}
    ) as BodyParserError;
    if (type === 'entity.too.large') {
      sendError(
        res,
        413,
        'PAYLOAD_TOO_LARGE',
        'The request body is larger than this server accepts',
      );
    } else if (type === 'entity.parse.failed') {
      sendError(res, 400, 'BAD_REQUEST', 'The request body is not valid JSON');
    } else if (typeof status === 'number' && status >= 400 && status < 500) {
      sendError(res, status, 'BAD_REQUEST', 'The request could not be read');
    } else {
      logger.error({ err }, 'unexpected error in the HTTP layer');
      sendError(res, 500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
    }
  };
}
