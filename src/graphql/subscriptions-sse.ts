/**
 * GraphQL subscriptions over Server-Sent Events: the `graphql-sse` protocol's "distinct connections
 * mode" (one HTTP request, `Accept: text/event-stream`, per subscription), served on the HTTP
 * server's own port at `/graphql/stream`, for clients whose proxies or CDNs break WebSockets. The
 * rules (who, what, how many) are ./subscription-rules.ts's, shared with graphql-ws; this module
 * only maps the protocol onto them. The HTTP layer routes the request here after CORS, the token
 * check and the body read (a body of at most `SUBSCRIPTIONS.messageBytes`).
 *
 * Contract:
 * - One request is one connection of the rules holding one subscription: it counts against the
 *   connections bound and its client's bound from its start until its response closes (the
 *   subscription completed, failed, or the client went away: its change stream closes then). It
 *   takes a place of the rules' admission as a WebSocket does, per address until its token is
 *   checked, then one of its caller's `connectionsPerCaller`, counted with its WebSockets.
 * - Before the stream opens, a refusal is an HTTP answer in GraphQL's error shape: 503 with
 *   `Retry-After` past the connections bound or the caller's (WebSocket: 1013), 403 FORBIDDEN for
 *   a caller who may call no subscription field (WebSocket: 4403). Once it is open, what the
 *   subscription itself is refused for (a document, a bound, its resolver) is its one `next`
 *   event's `errors`, then `complete`, as graphql-ws sends an `error` message.
 * - A peer that stops reading is closed: once a write has waited `keepAliveMs` for the peer to
 *   take what its socket's buffers hold (Node's `drain`), the response is destroyed, as graphql-ws
 *   terminates a socket whose pong is late. Nothing more is written to it while it waits, so what
 *   a stalled peer holds in the service is bounded by that wait.
 * - Only `text/event-stream` requests: single-connection mode (reserved streams) is not offered,
 *   so a request without that `Accept` is 406.
 * - The stream carries a comment every 12 s (graphql-sse's ping) so proxies keep it open.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult, GraphQLError } from 'graphql';
import { createHandler, type OperationArgs } from 'graphql-sse';
import { subscribeSharing } from './subscription-execution';
import type { SubscriberConnection, SubscriptionRules } from './subscription-rules';

/** The path of the SSE transport (beside `/graphql`, which answers queries, mutations and graphql-ws). */
export const SSE_PATH = '/graphql/stream';

export interface SseTransport {
  /** Serves one SSE request; `body` is its parsed JSON body (a POST), if any. */
  /**
   * Serves one subscription request; `address` is the client's (`TRUST_PROXY` applied by the HTTP
   * layer), whose budgets a caller without a token draws on, and `requestId` names the request in
   * every refusal it answers.
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    who: { address: string; requestId: string },
  ): Promise<void>;
  /** Ends every open stream (their subscriptions complete, their change streams close). */
  close(): Promise<void>;
}

/** Which connection each request is, for graphql-sse's callbacks (given the request back). */
type RequestContext = { connection: SubscriberConnection };
/** graphql-sse's view of the GraphQL context (./context.ts): only handed back to the callbacks. */
type OperationContext = Record<PropertyKey, unknown>;

function sendErrors(
  res: ServerResponse,
  requestId: string,
  status: number,
  error: {
    message: string;
    code: string;
    retryable?: boolean;
    retryAfter?: number;
    budget?: string;
  },
  headers: Record<string, string> = {},
): void {
  const { message, ...rest } = error;
  const extensions = { ...rest, requestId };
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify({ errors: [{ message, extensions }] }));
}

export function createSseTransport(rules: SubscriptionRules): SseTransport {
  const open = new Set<ServerResponse>();
  const handler = createHandler<IncomingMessage, RequestContext, OperationContext>({
    schema: rules.schema,
    subscribe: subscribeSharing,
    // Distinct connections only: no stream token is ever issued or read.
    authenticate: () => null,
    // The rules validated the document already (graphql-js's rules and graphql-armor's).
    validate: () => [],
    onSubscribe: async (req, params) => {
      const started = await rules.start(req.context.connection, 'sse', params, 'SSE');
      return 'document' in started
        ? (started as OperationArgs<OperationContext>)
        : // graphql-sse takes a result for one only when it has a `data` entry.
          { data: null, errors: started as GraphQLError[] };
    },
    // Formatted as graphql-ws's are; an SSE event carries them as JSON all the same.
    onNext: (_ctx, req, result) =>
      rules.formatResult(result as ExecutionResult, req.context.connection, 'sse') as
        ExecutionResult | undefined,
    onComplete: (_ctx, req) => rules.end(req.context.connection, 'sse'),
  });

  return {
    async handle(req, res, body, { address, requestId }) {
      if (!(req.headers.accept ?? '').includes('text/event-stream')) {
        return sendErrors(res, requestId, 406, {
          message: `${SSE_PATH} serves subscriptions as Server-Sent Events: send Accept: text/event-stream`,
          code: 'BAD_REQUEST',
        });
      }
      const connection = rules.connect();
      if (connection === null) {
        return tryAgainLater(res, requestId, 'Too many subscription connections; try again later');
      }
      const ticket = rules.admission.open(address, () => res.destroy());
      open.add(res);
      res.once('close', () => {
        open.delete(res);
        rules.admission.release(ticket);
        rules.disconnect(connection);
      });
      const who = rules.whoIs(req.headers.authorization, address);
      if (who === 'forbidden') {
        return sendErrors(res, requestId, 403, {
          message: 'This caller may not subscribe: subscriptions need a client or admin token',
          code: 'FORBIDDEN',
        });
      }
      // Room first, then the budget: a stream refused for want of room costs its caller nothing.
      const admitted = rules.admit(ticket, who);
      if (admitted !== true) return tryAgainLater(res, requestId, admitted);
      const refused = await rules.chargeConnection(connection, who);
      if (refused !== null) {
        return sendErrors(
          res,
          requestId,
          429,
          {
            message: refused.message,
            code: refused.code,
            retryable: true,
            retryAfter: refused.retryAfter,
            budget: refused.budget,
          },
          { 'retry-after': String(refused.retryAfter) },
        );
      }
      const [answer, init] = await handler({
        method: req.method ?? 'GET',
        url: req.url ?? SSE_PATH,
        headers: {
          // graphql-sse compares the whole header to choose the protocol's mode.
          get: (key) =>
            key === 'accept' ? 'text/event-stream' : headerValue(req.headers[key.toLowerCase()]),
        },
        body: body === undefined ? null : (body as Record<string, unknown>),
        raw: req,
        context: { connection },
      });
      res.writeHead(init.status, init.statusText, init.headers);
      if (answer === null || typeof answer === 'string') {
        res.end(answer ?? undefined);
        return;
      }
      res.once('close', () => void answer.return(undefined));
      res.flushHeaders();
      const waitMs = rules.bounds.keepAliveMs;
      for await (const message of answer) {
        if (!res.writable) break;
        if (!(await taken(res, message, waitMs))) {
          res.destroy();
          break;
        }
      }
      // The last bytes too: a peer that does not take them within the wait is closed all the same.
      if (!res.destroyed && !(await ended(res, waitMs))) res.destroy();
    },
    async close() {
      for (const res of open) res.end();
    },
  };
}

/** A refusal for want of room: 503 with `Retry-After`, as the WebSocket transport's 1013. */
function tryAgainLater(res: ServerResponse, requestId: string, message: string): void {
  sendErrors(
    res,
    requestId,
    503,
    { message, code: 'TOO_MANY_SUBSCRIPTIONS', retryable: true },
    { 'retry-after': '5' },
  );
}

/**
 * Writes `chunk`: true once the peer has taken what the socket's buffers held (at once while they
 * have room), false when it has not within `waitMs`. A response that closes meanwhile is taken.
 */
function taken(res: ServerResponse, chunk: string, waitMs: number): Promise<boolean> {
  if (res.write(chunk)) return Promise.resolve(true);
  return settled(res, 'drain', waitMs);
}

/** Ends the response: true once its last bytes were taken, false when not within `waitMs`. */
function ended(res: ServerResponse, waitMs: number): Promise<boolean> {
  if (res.writableFinished) return Promise.resolve(true);
  res.end();
  return settled(res, 'finish', waitMs);
}

/** True when `event` (or `close`) comes within `waitMs`, false when the wait ends first. */
function settled(res: ServerResponse, event: 'drain' | 'finish', waitMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (outcome: boolean) => () => {
      clearTimeout(timer);
      res.off(event, onEvent);
      res.off('close', onEvent);
      resolve(outcome);
    };
    const onEvent = done(true);
    const timer = setTimeout(done(false), waitMs);
    res.once(event, onEvent);
    res.once('close', onEvent);
  });
}

const headerValue = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value.join(', ') : value;
