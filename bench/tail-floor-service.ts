/**
 * The tail floor, as a bench fixture: a plain `node:http` server that answers every `createUser`
 * with a success after `TAIL_FLOOR_CPU_MS` of CPU spent in one piece, in the order the requests
 * came, and nothing else: no database, no waits, no GraphQL, next to no garbage.
 *
 * Why: issue 37 asks BLOCK and TRANSACTION at 64 in flight for p99 <= 2 x p50. Loaded by the same
 * autocannon on the same machine as a service process, at the CPU per user the service spends,
 * this server is the best a process can do there: its p99 ÷ p50 is what the machine (two cores
 * shared by the load generator, the server and the database process) and the client add alone.
 * Run it beside the service with `npm run bench:compare`, e.g. at BLOCK's CPU per user:
 *
 *   npm run bench:compare -- --strategy BLOCK dist/main.js \
 *     --node-args "--import tsx" --env TAIL_FLOOR_CPU_MS=0.17 bench/tail-floor-service.ts
 *
 * Contract: speaks to the bench as a service process does (src/main.ts): `PORT` from the
 * environment; `GET /ready` answers 200; `GET /metrics` holds
 * `sequential_ids_users_created_total{strategy}` for the strategy each request named; SIGTERM
 * closes the server and exits. The answer has the service's shape (`user { id }`, `attempts`,
 * `error`), so the bench's checks read it as a success.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';

const cpuMs = Number(process.env.TAIL_FLOOR_CPU_MS ?? '0.17');
if (!(cpuMs >= 0 && cpuMs <= 100)) throw new Error('TAIL_FLOOR_CPU_MS takes 0 to 100');

const created = new Map<string, number>();
let nextId = 1;

function spend(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the service's own work per request, in one piece
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function metrics(): string {
  const lines = ['# TYPE sequential_ids_users_created_total counter'];
  for (const [strategy, count] of created)
    lines.push(`sequential_ids_users_created_total{strategy="${strategy}"} ${count}`);
  return `${lines.join('\n')}\n`;
}

const server = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/ready') return void res.end('ready');
  if (path === '/metrics') return void res.end(metrics());
  void readBody(req).then((text) => {
    const { variables } = JSON.parse(text) as { variables?: { strategy?: string } };
    const strategy = variables?.strategy ?? 'COUNTER';
    spend(cpuMs);
    created.set(strategy, (created.get(strategy) ?? 0) + 1);
    const id = nextId++;
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        data: { createUser: { user: { id: String(id) }, attempts: 1, error: null } },
      }),
    );
  });
});
server.listen({ port: Number(process.env.PORT), host: '127.0.0.1', backlog: 4096 });
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
