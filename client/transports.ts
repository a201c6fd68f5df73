/**
 * Subscriptions for Apollo Client 4 and urql over either transport the service speaks, with the
 * same few lines: graphql-ws over a WebSocket (`/graphql`), or GraphQL over Server-Sent Events
 * (`/graphql/stream`, the `graphql-sse` protocol, plain HTTP for networks whose proxies or CDNs
 * break WebSockets). Both carry the same subscriptions under the same rules and bounds.
 *
 *   const subscriptions = sseClient({ url: 'https://ids.example.com/graphql', token });
 *   // or wsClient({ ... }) for a WebSocket
 *   new ApolloClient({ link: split(isSubscription, subscriptionLink(subscriptions), http), ... });
 *   new Client({ exchanges: [..., subscriptionsExchange(subscriptions), fetchExchange], ... });
 *
 * What the adapters add to the libraries' own: a refusal reaches the app as an `Error` with a
 * `code` and a message, never "[Network] undefined": a WebSocket closed by the service (4403 for a
 * token that may not subscribe, 1013 past the connections bound) as
 * `SubscriptionConnectionError` with the close code and reason; an SSE request refused before its
 * stream opened (403, 503) with the GraphQL error the service answered and the HTTP status. An
 * error of the subscription itself (a bound, a bad document, its resolver's) arrives as GraphQL
 * errors in a result, on both transports, as a query's would.
 */
import { ApolloLink } from '@apollo/client';
import { print } from 'graphql';
import { type Exchange, subscriptionExchange } from '@urql/core';
import {
  type Client as SseClient,
  type ClientOptions as SseClientOptions,
  createClient as createSseClient,
} from 'graphql-sse';
import {
  type Client as WsClient,
  type ClientOptions as WsClientOptions,
  createClient as createWsClient,
} from 'graphql-ws';
import { Observable } from 'rxjs';

/** Where the service's GraphQL endpoint is (the `/graphql` URL queries go to) and who calls. */
export interface SubscriptionEndpoint {
  /** The HTTP(S) URL of `/graphql`, as `HttpLink` and urql's `url` take it. */
  url: string;
  /** A client or admin token; outside production none is needed. */
  token?: string;
}

/** A subscription connection the service closed, with the WebSocket close code and reason. */
export class SubscriptionConnectionError extends Error {
  constructor(
    readonly code: number | string,
    message: string,
    /** The HTTP status of an SSE request refused before its stream opened. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SubscriptionConnectionError';
  }
}

/** A graphql-sse client in distinct-connections mode: one HTTP request per subscription. */
export function sseClient(
  endpoint: SubscriptionEndpoint,
  options: Partial<SseClientOptions> = {},
): SseClient {
  return createSseClient({
    url: `${endpoint.url.replace(/\/$/, '')}/stream`,
    headers: endpoint.token === undefined ? {} : { authorization: `Bearer ${endpoint.token}` },
    ...options,
    singleConnection: false,
  });
}

/** A graphql-ws client; the token travels in `connection_init`, as browsers set no headers. */
export function wsClient(
  endpoint: SubscriptionEndpoint,
  options: Partial<WsClientOptions> = {},
): WsClient {
  return createWsClient({
    url: endpoint.url.replace(/^http/, 'ws'),
    connectionParams:
      endpoint.token === undefined ? {} : { authorization: `Bearer ${endpoint.token}` },
    ...options,
  });
}

type Transport = Pick<SseClient, 'subscribe'> | Pick<WsClient, 'subscribe'>;
type Request = { query: string; variables?: Record<string, unknown>; operationName?: string };
type Result = { data?: unknown; errors?: unknown[]; extensions?: unknown };
interface Sink {
  next(result: Result): void;
  error(error: Error): void;
  complete(): void;
}

/** What a transport reported as an error, as an `Error` an app can read (the header). */
async function readableError(failure: unknown): Promise<Error> {
  if (failure instanceof Error) {
    const response = (failure as { response?: Response }).response;
    if (response === undefined) return failure;
    // An SSE request refused before its stream: the service's answer is GraphQL's error shape.
    try {
      const body = (await response.json()) as {
        errors?: Array<{ message?: string; extensions?: { code?: string } }>;
      };
      const [first] = body.errors ?? [];
      return new SubscriptionConnectionError(
        first?.extensions?.code ?? response.status,
        first?.message ?? failure.message,
        response.status,
      );
    } catch {
      return new SubscriptionConnectionError(response.status, failure.message, response.status);
    }
  }
  if (failure !== null && typeof failure === 'object' && 'code' in failure) {
    const { code, reason } = failure as { code: number; reason?: string };
    return new SubscriptionConnectionError(
      code,
      `The subscription connection was closed with ${code}${reason ? `: ${reason}` : ''}`,
    );
  }
  return new Error(`The subscription failed: ${String(failure)}`);
}

/** Runs `request` on `transport`, GraphQL errors as results and other failures as readable errors. */
function forward(transport: Transport, request: Request, sink: Sink): () => void {
  return transport.subscribe(request, {
    next: (result) => sink.next(result as Result),
    complete: () => sink.complete(),
    error: (failure: unknown) => {
      // graphql-ws's `error` message: the subscription's GraphQL errors.
      if (Array.isArray(failure)) {
        sink.next({ errors: failure });
        sink.complete();
        return;
      }
      void readableError(failure).then((error) => sink.error(error));
    },
  });
}

/** Apollo Client's terminating link for subscriptions over either transport. */
export function subscriptionLink(transport: Transport): ApolloLink {
  return new ApolloLink(
    (operation) =>
      new Observable<ApolloLink.Result>((observer) =>
        forward(
          transport,
          {
            query: print(operation.query),
            variables: operation.variables,
            operationName: operation.operationName,
          },
          {
            next: (result) => observer.next(result as ApolloLink.Result),
            error: (error) => observer.error(error),
            complete: () => observer.complete(),
          },
        ),
      ),
  );
}

/** urql's `subscriptionExchange` over either transport. */
export function subscriptionsExchange(transport: Transport): Exchange {
  return subscriptionExchange({
    forwardSubscription: (request) => ({
      subscribe: (sink) => ({
        unsubscribe: forward(
          transport,
          {
            query: request.query ?? '',
            variables: request.variables as Record<string, unknown> | undefined,
            operationName: request.operationName,
          },
          {
            next: (result) => sink.next(result as Parameters<typeof sink.next>[0]),
            error: (error) => sink.error(error),
            complete: () => sink.complete(),
          },
        ),
      }),
    }),
  });
}
