/**
 * The Apollo Server: schema, resolvers, error mapping and the GraphQL-level limits.
 *
 * Hardening: graphql-armor (maintained, supports @apollo/server 5) bounds depth, cost, aliases and
 * directives before anything executes. Tokens are bounded by graphql-js's own parser limit
 * (`parseOptions.maxTokens`) instead of armor's max-tokens plugin, which throws from Apollo's
 * `unexpectedErrorProcessingRequest` hook and so answers 500 (graphql-armor issue #751); the
 * parser's limit is a syntax error, 400 GRAPHQL_PARSE_FAILED; batching is on (the HTTP layer caps the number of
 * operations per request); CSRF prevention is Apollo's default and stays on. In production:
 * no introspection, no landing page, no stack traces, no field suggestions.
 *
 * Automatic persisted queries (APQ) live in a store the HTTP layer shares (`PersistedQueries`): a
 * request may send a document's hash alone, and the per-request bounds must be read from the
 * document that hash stands for, else a registered document runs unplanned (src/http/limits.ts).
 *
 * Apollo's cache-control plugin is off: the schema declares no cache hints, so all it did was
 * answer `cache-control: no-store`, at the price of wrapping every field's resolver to collect
 * hints (issue 14 measured the cost). The HTTP layer now sends `no-store` itself
 * (src/http/app.ts). Inline tracing is for federated subgraphs, which this schema is not.
 */
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import {
  InMemoryLRUCache,
  PrefixingKeyValueCache,
  type KeyValueCache,
} from '@apollo/utils.keyvaluecache';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { Server } from 'node:http';
import type { Config } from '../config.js';
import { DOCUMENT } from '../limits.js';
import type { Logger } from '../logger.js';
import type { GraphQLContext } from './context.js';
import { createErrorFormatter } from './errors.js';
import { resolvers } from './resolvers.js';
import { scalarResolvers } from './scalars.js';
import { loadTypeDefs } from './schema.js';

/**
 * The operation the Sandbox opens with, so a first visit can create a user with one click (and sees
 * where an expected failure comes back: the payload's `error`).
 */
const EXAMPLE_OPERATION = `# Create a user; its id comes from the chosen strategy (COUNTER, OPTIMISTIC_LOOP or BLOCK).
mutation CreateUser($input: CreateUserInput!, $strategy: IdStrategy) {
  createUser(input: $input, strategy: $strategy) {
    user {
      id
      name
      email
      createdWith
      createdAt
    }
    attempts
    replayed
    error {
      code
      message
      field
    }
  }
}
`;

export type ApolloConfig = Pick<Config, 'NODE_ENV'>;

/** Documents registered by APQ, keyed by their SHA-256 hash as sent in `persistedQuery`. */
export type PersistedQueries = KeyValueCache<string>;

/** A bounded store (Apollo's default LRU); unprefixed, so a hash is its key for every reader. */
export function createPersistedQueries(): PersistedQueries {
  return PrefixingKeyValueCache.cacheDangerouslyDoesNotNeedPrefixesForIsolation(
    new InMemoryLRUCache<string>(),
  );
}

export function createApolloServer(
  config: ApolloConfig,
  httpServer: Server,
  logger: Logger,
  persistedQueries: PersistedQueries,
): ApolloServer<GraphQLContext> {
  const production = config.NODE_ENV === 'production';
  const armor = new ApolloArmor({
    maxDepth: { n: DOCUMENT.depth },
    costLimit: { maxCost: DOCUMENT.cost },
    maxAliases: { n: DOCUMENT.aliases },
    maxDirectives: { n: DOCUMENT.directives },
    maxTokens: { enabled: false },
    blockFieldSuggestion: { enabled: production },
  }).protect();
  const landingPage: ApolloServerPlugin = production
    ? ApolloServerPluginLandingPageDisabled()
    : ApolloServerPluginLandingPageLocalDefault({
        embed: true,
        document: EXAMPLE_OPERATION,
        variables: {
          input: { name: 'Ada Lovelace', email: 'ada@example.com' },
          strategy: 'COUNTER',
        },
        includeCookies: false,
      });
  return new ApolloServer<GraphQLContext>({
    typeDefs: loadTypeDefs(),
    resolvers: [resolvers, scalarResolvers],
    validationRules: armor.validationRules,
    parseOptions: { maxTokens: DOCUMENT.tokens },
    plugins: [
      ...armor.plugins,
      ApolloServerPluginDrainHttpServer({ httpServer }),
      landingPage,
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
    ],
    allowBatchedHttpRequests: true,
    persistedQueries: { cache: persistedQueries },
    csrfPrevention: true,
    introspection: !production,
    includeStacktraceInErrorResponses: !production,
    formatError: createErrorFormatter(logger),
    // src/main.ts owns SIGINT/SIGTERM (drain, close the client, exit 0). Apollo's own handlers,
    // on by default outside NODE_ENV=test, would race it and hang the shutdown.
    stopOnTerminationSignals: false,
    logger,
  });
}
