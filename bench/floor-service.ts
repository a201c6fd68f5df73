/**
 * The floor of issue 14, as a bench fixture: Apollo Server 5 behind a plain `node:http` handler
 * calling `executeHTTPGraphQLRequest`, whose one `createUser` resolver does the tutorial's two
 * commands (`findOneAndUpdate` upsert `$inc`, then `insertOne`) with the service's client options
 * (write concern `majority`, bounded waits) and `maxTimeMS`, and nothing else: no tokens, CORS,
 * body limit, deadline, request plan, validation, idempotency, index checks or statistics.
 *
 * Why: the raw loop is the tutorial on the bare driver; the service adds HTTP, GraphQL and its own
 * rules. Run beside both in the bench's paired rounds (same load, same CPU metering, as a service
 * process), this splits COUNTER's cost: floor ÷ raw loop is what the stack itself costs (Node's
 * HTTP, Apollo, graphql-js, the driver inside a server), COUNTER ÷ floor what this project adds.
 *
 * Contract: speaks to the bench as a service process does (src/main.ts): `PORT`, `MONGODB_URI`,
 * `MONGODB_DB` from the environment; `GET /ready` answers 200 once connected; `GET /metrics` holds
 * `sequential_ids_users_created_total{strategy="COUNTER"}`; SIGTERM closes the server and the client, then exits.
 * Run with `node --import tsx bench/floor-service.ts`.
 */
import { ApolloServer, HeaderMap } from '@apollo/server';
import { MongoClient } from 'mongodb';
import { createServer, type IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { Counter, Registry } from 'prom-client';
import { clientOptions } from '../src/database/connect';

/** The service's default DB_TIMEOUT_MS (src/config.ts), its `maxTimeMS` and client bounds. */
const MAX_TIME_MS = 5_000;

const typeDefs = `#graphql
  enum IdStrategy { COUNTER OPTIMISTIC_LOOP BLOCK }
  input CreateUserInput { name: String! }
  type User { id: ID! name: String! }
  type PayloadError { code: String! retryable: Boolean! }
  type CreateUserPayload { user: User attempts: Int! error: PayloadError }
  type Query { ok: Boolean }
  type Mutation { createUser(input: CreateUserInput!, strategy: IdStrategy): CreateUserPayload! }
`;

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function main(): Promise<void> {
  // The service's heap setting (src/main.ts), so both meet the same collector.
  setFlagsFromString('--heap-growing-percent=50');
  const env = (name: string): string => {
    const value = process.env[name];
    if (value === undefined) throw new Error(`${name} is required`);
    return value;
  };
  const client = new MongoClient(
    env('MONGODB_URI'),
    clientOptions(
      { DB_TIMEOUT_MS: MAX_TIME_MS, WRITE_CONCERN: 'majority' },
      'sequential-ids-floor',
    ),
  );
  await client.connect();
  const db = client.db(env('MONGODB_DB'));
  const counters = db.collection<{ _id: string; seq: number }>('counters');
  const users = db.collection<{ _id: number; name: string; createdAt: Date }>('users');

  const registry = new Registry();
  const created = new Counter({
    name: 'sequential_ids_users_created_total',
    help: 'Users created, by id strategy.',
    labelNames: ['strategy'],
    registers: [registry],
  }).labels({ strategy: 'COUNTER' });

  const apollo = new ApolloServer({
    typeDefs,
    resolvers: {
      Mutation: {
        createUser: async (_parent: unknown, args: { input: { name: string } }) => {
          const counter = await counters.findOneAndUpdate(
            { _id: 'userid' },
            { $inc: { seq: 1 } },
            { upsert: true, returnDocument: 'after', maxTimeMS: MAX_TIME_MS },
          );
          const id = Number(counter?.seq);
          await users.insertOne(
            { _id: id, name: args.input.name, createdAt: new Date() },
            { maxTimeMS: MAX_TIME_MS },
          );
          created.inc();
          return { user: { id: String(id), name: args.input.name }, attempts: 1, error: null };
        },
      },
    },
  });
  await apollo.start();

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/ready') return void res.end('ready');
    if (path === '/metrics') {
      void registry.metrics().then((text) => res.end(text));
      return;
    }
    void (async () => {
      const headers = new HeaderMap();
      for (const [key, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      }
      const answer = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: {
          method: req.method ?? 'GET',
          headers,
          search: '',
          body: await readBody(req),
        },
        context: async () => ({}),
      });
      for (const [key, value] of answer.headers) res.setHeader(key, value);
      res.statusCode = answer.status ?? 200;
      res.end(answer.body.kind === 'complete' ? answer.body.string : '');
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(Number(env('PORT')), '127.0.0.1', resolve));

  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    void Promise.all([apollo.stop(), client.close()]).finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`floor service failed: ${String(error)}\n`);
  process.exit(1);
});
