/**
 * The GraphQL face of the service, for the HTTP layer: the schema and Apollo Server built over the
 * components, the per-request context, the request bounds planned on each document, the check of
 * a document's string literals, and the subscription transports (WebSocket and Server-Sent Events)
 * under one set of rules.
 */
export {
  createApolloServer,
  createSchema,
  documentProtection,
  EXAMPLE_OPERATION,
  EXAMPLE_VARIABLES,
} from './server';
export { loadTypeDefs } from './schema';
export { createContextFactory, type GraphQLContext } from './context';
export { RequestBounds } from './request-bounds';
export { malformedLiteral } from './lone-surrogates';
export { startSubscriptionServer, SERVICE_RESTART } from './subscriptions';
export { createSseTransport, SSE_PATH, type SseTransport } from './subscriptions-sse';
export { SubscriptionRules } from './subscription-rules';
export type { SubscriptionBounds } from './subscription-holdings';
