/**
 * The Apollo Server: schema, resolvers, error mapping and the GraphQL-level limits.
 *
 * Hardening: graphql-armor (maintained, supports @apollo/server 5) bounds depth, cost, aliases and
 * directives before anything executes (the numbers are src/limits.ts `DOCUMENT`). Its refusals are
 * reported as validation errors (`asValidationError`): armor throws them with a message beginning
 * "Syntax Error:", which misleads a client (the document parsed; it asks for too much). Tokens are bounded by graphql-js's own parser limit
 * (`parseOptions.maxTokens`) instead of armor's max-tokens plugin, which throws from Apollo's
 * `unexpectedErrorProcessingRequest` hook and so answers 500 (escape-technologies/graphql-armor#751); the
 * parser's limit is a syntax error, 400 GRAPHQL_PARSE_FAILED; batching is on (the HTTP layer caps the number of
 * operations per request); CSRF prevention is Apollo's default and stays on. In production:
 * no introspection, no landing page, no stack traces, no field suggestions.
 *
 * What the whole request asks for (users, allocations, listed items) is checked by
 * `requestBoundsPlugin` on the document Apollo parsed and validated, once per operation; an
 * automatic persisted query (APQ) sent as a hash alone is checked on the document Apollo resolved.
 * The same plugin keeps every answer's errors within src/limits.ts `ERRORS`, and runs armor's
 * field-suggestion mask on a request with errors (armor's only plugin, whose only hook is
 * `didEncounterErrors`; test/graphql/request-plugins.test.ts holds that).
 *
 * Apollo's cache-control plugin is off: the schema declares no cache hints, so all it did was
 * answer `cache-control: no-store`, at the price of wrapping every field's resolver to collect
 * hints, a measured cost. The HTTP layer sends `no-store` itself
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
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { GraphQLError, type GraphQLSchema, type ValidationContext } from 'graphql';
import type { Server } from 'node:http';
import type { Config } from '../config';
import { DOCUMENT } from '../limits';
import type { Logger } from '../logger';
import type { GraphQLContext } from './context';
import { createErrorFormatter } from './errors';
import { requestBoundsPlugin } from './request-bounds';
import { resolvers } from './resolvers';
import { scalarResolvers } from './scalars';
import { loadTypeDefs } from './schema';

/**
 * The operation the Sandbox and the local explorer open with, so a first visit can create a user
 * with one click (and sees where an expected failure comes back: the payload's `error`).
 */
export const EXAMPLE_OPERATION = `# Create a user; its id comes from the chosen strategy (COUNTER, OPTIMISTIC_LOOP or BLOCK).
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

/** The variables of `EXAMPLE_OPERATION`. */
export const EXAMPLE_VARIABLES = {
  input: { name: 'Ada Lovelace', email: 'ada@example.com' },
  strategy: 'COUNTER',
};

export type ApolloConfig = Pick<Config, 'NODE_ENV'>;

const ARMOR_PREFIX = 'Syntax Error: ';

/**
 * For each armor rule: its refusal reported to graphql-js as a validation error (400
 * GRAPHQL_VALIDATION_FAILED), without armor's "Syntax Error:" prefix, instead of thrown.
 */
const asValidationError = {
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) => {
      const message = error.message.startsWith(ARMOR_PREFIX)
        ? error.message.slice(ARMOR_PREFIX.length)
        : error.message;
      context?.reportError(new GraphQLError(`Validation: ${message}`));
    },
  ],
};

/** The executable schema, built once per server and shared by HTTP (Apollo) and WebSocket. */
export function createSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: loadTypeDefs(),
    resolvers: [resolvers, scalarResolvers],
  });
}

/** graphql-armor's rules and plugins: the same document bounds over HTTP and WebSocket. */
export function documentProtection(config: ApolloConfig) {
  const production = config.NODE_ENV === 'production';
  return new ApolloArmor({
    maxDepth: { n: DOCUMENT.depth, ...asValidationError },
    costLimit: { maxCost: DOCUMENT.cost, ...asValidationError },
    maxAliases: { n: DOCUMENT.aliases, ...asValidationError },
    maxDirectives: { n: DOCUMENT.directives, ...asValidationError },
    maxTokens: { enabled: false },
    blockFieldSuggestion: { enabled: production },
  }).protect();
}

export function createApolloServer(
  config: ApolloConfig,
  httpServer: Server,
  logger: Logger,
  schema: GraphQLSchema = createSchema(),
  armor = documentProtection(config),
): ApolloServer<GraphQLContext> {
  const production = config.NODE_ENV === 'production';
  const landingPage: ApolloServerPlugin = production
    ? ApolloServerPluginLandingPageDisabled()
    : ApolloServerPluginLandingPageLocalDefault({
        embed: true,
        document: EXAMPLE_OPERATION,
        variables: EXAMPLE_VARIABLES,
        includeCookies: false,
      });
  return new ApolloServer<GraphQLContext>({
    schema,
    validationRules: armor.validationRules,
    parseOptions: { maxTokens: DOCUMENT.tokens },
    plugins: [
      // armor's plugins (the field-suggestion mask, in production) only mend errors: run by the
      // bounds plugin's listener when there are errors, not as a listener of every request.
      requestBoundsPlugin<GraphQLContext>(armor.plugins),
      ApolloServerPluginDrainHttpServer({ httpServer }),
      landingPage,
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
    ],
    allowBatchedHttpRequests: true,
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
