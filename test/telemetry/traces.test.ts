/**
 * Traces, off by default and one variable away. A real service process exports to an OTLP/HTTP
 * receiver of the test's own (a plain HTTP server taking the JSON the exporter posts): one
 * `createUser` sent with a `traceparent` yields spans in that trace for the HTTP request, the
 * GraphQL operation and each MongoDB command, linked parent to child, and the request id is the
 * trace id; no value of the request's input is in a span; a TRANSACTION creation shows its
 * transaction, and a retry of it that a fail point causes (a WriteConflict on the insert, on a
 * private stand-in so the fail point meets no other file's service) shows as the retry event and
 * both attempts' commands; probes are not traced. Off (no endpoint, or OTEL_SDK_DISABLED), nothing
 * is exported and no OpenTelemetry module is loaded.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startStandin } from 'mongodb-standin';
import { testMongoUri, uniqueDbName } from '../support/db';
import {
  MAIN_PROCESS_TIMEOUT_MS,
  startMainProcess,
  type MainProcess,
} from '../support/main-process';
import { postGraphQL } from '../support/service';
import { clearFailPoint, setFailPoint } from '../reliability/fail-points';
import { SERVICE_APP_NAME } from '../../src/database';

const ROOT = path.resolve(__dirname, '..', '..');

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  events?: Array<{ name: string; attributes?: ExportedSpan['attributes'] }>;
  /** OTLP's status: code 2 is ERROR. */
  status?: { code?: number };
}

interface Receiver {
  endpoint: string;
  contentTypes: string[];
  spans: ExportedSpan[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Receiver = { endpoint: '', contentTypes: [], spans: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.contentTypes.push(String(req.headers['content-type']));
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: ExportedSpan[] }> }>;
        };
        for (const resource of body.resourceSpans) {
          for (const scope of resource.scopeSpans) received.spans.push(...scope.spans);
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  received.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  received.close = () => new Promise((resolve) => server.close(() => resolve()));
  return received;
}

const attribute = (span: Pick<ExportedSpan, 'attributes'>, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
};

/** The ancestors of `span` within `spans`, nearest first. */
function ancestors(span: ExportedSpan, spans: ExportedSpan[]): ExportedSpan[] {
  const chain: ExportedSpan[] = [];
  let current = span;
  for (;;) {
    const parent = spans.find((s) => s.spanId === current.parentSpanId);
    if (parent === undefined) return chain;
    chain.push(parent);
    current = parent;
  }
}

async function spansOf(
  receiver: Receiver,
  traceId: string,
  until: (spans: ExportedSpan[]) => boolean,
) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    if (until(spans) || Date.now() > deadline) return spans;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const CREATE = `mutation Signup($strategy: IdStrategy) {
  createUser(input: { name: "Traced" }, strategy: $strategy) { user { id } error { code } }
}`;

describe('with an OTLP endpoint', () => {
  let receiver: Receiver;
  let main: MainProcess;
  let url: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    main = startMainProcess({
      NODE_ENV: 'test',
      MONGODB_URI: testMongoUri(),
      MONGODB_DB: uniqueDbName('traces'),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    url = await main.ready;
  }, MAIN_PROCESS_TIMEOUT_MS);

  afterAll(async () => {
    main.child.kill('SIGTERM');
    expect(await main.exited).toBe(0);
    await receiver.close();
  });

  /** Sends a sampled createUser in trace `traceId` and waits until its server span is exported. */
  async function tracedRequestExported(traceId: string) {
    await postGraphQL(
      url,
      CREATE,
      { strategy: 'COUNTER' },
      {
        traceparent: `00-${traceId}-b7ad6b7169203335-01`,
      },
    );
    const spans = await spansOf(receiver, traceId, (found) => found.some((s) => s.kind === 2));
    expect(spans.some((span) => span.kind === 2)).toBe(true);
  }

  test("one createUser: HTTP, GraphQL and every MongoDB command, in the caller's trace, parent to child", async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const callerSpan = 'b7ad6b7169203331';
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${callerSpan}-01`,
      },
      body: JSON.stringify({ query: CREATE, variables: { strategy: 'COUNTER' } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe(traceId);
    const spans = await spansOf(
      receiver,
      traceId,
      (found) =>
        found.some((span) => span.name.startsWith('mutation')) &&
        found.filter(
          (span) =>
            attribute(span, 'db.system') === 'mongodb' ||
            attribute(span, 'db.system.name') === 'mongodb',
        ).length >= 2,
    );
    expect(receiver.contentTypes).toContain('application/json');
    const server = spans.find((span) => span.kind === 2);
    expect(server?.parentSpanId).toBe(callerSpan);
    expect(server?.name).toBe('POST /graphql');
    expect(server && attribute(server, 'http.request.method')).toBe('POST');
    expect(server && attribute(server, 'http.route')).toBe('/graphql');
    expect(server && Number(attribute(server, 'http.response.status_code'))).toBe(200);
    const operation = spans.find((span) => span.name === 'mutation Signup');
    expect(operation).toBeDefined();
    expect(ancestors(operation as ExportedSpan, spans)).toContainEqual(server);
    const commands = spans.filter(
      (span) =>
        attribute(span, 'db.system') === 'mongodb' ||
        attribute(span, 'db.system.name') === 'mongodb',
    );
    // COUNTER: the counter's findAndModify and the insert.
    expect(commands.map((span) => span.name).join(' ')).toMatch(/findAndModify/);
    expect(commands.map((span) => span.name).join(' ')).toMatch(/insert/);
    // The caller's budget is charged at admission, before GraphQL runs (src/budgets): its command
    // is the HTTP request's; every other command is the operation's.
    // The instrumentation names a findAndModify's collection `$cmd`; the limiter's command is known
    // by the collection its text names (src/telemetry/command-text.ts).
    const collectionOf = (span: ExportedSpan) =>
      /^\{"findAndModify":"budgets"/.test(String(attribute(span, 'db.query.text') ?? ''))
        ? 'budgets'
        : 'service';
    for (const command of commands) {
      expect(ancestors(command, spans)).toContainEqual(
        collectionOf(command) === 'budgets' ? server : operation,
      );
    }
    expect(
      commands.filter((command) => collectionOf(command) !== 'budgets').length,
    ).toBeGreaterThan(1);
    const withFacts = spans.find(
      (span) => attribute(span, 'sequential_ids.strategy') === 'COUNTER',
    );
    expect(withFacts && attribute(withFacts, 'sequential_ids.ids_taken')).toBeDefined();
    // Commands are named and shown without a value: the user's name is in no span.
    expect(commands.every((span) => /^\{"/.test(String(attribute(span, 'db.query.text'))))).toBe(
      true,
    );
    expect(JSON.stringify(spans)).not.toContain('Traced');
  });

  test("a caller's unsampled trace keeps its id and records nothing", async () => {
    const unsampled = '5af7651916cd43dd8448eb211c80319b';
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        traceparent: `00-${unsampled}-b7ad6b7169203336-00`,
      },
      body: JSON.stringify({ query: CREATE, variables: { strategy: 'TRANSACTION' } }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data?: { createUser: { error: unknown } } };
    expect(body.data?.createUser.error).toBeNull();
    expect(response.headers.get('x-request-id')).toBe(unsampled);
    // Once a sampled request's spans are exported, the unsampled one's would be too.
    await tracedRequestExported('6af7651916cd43dd8448eb211c80319c');
    expect(receiver.spans.filter((span) => span.traceId === unsampled)).toEqual([]);
    // Nothing of it either as a trace of its own (its operation, its transaction, its commands).
    const rootless = receiver.spans.filter(
      (span) => span.parentSpanId === undefined || span.parentSpanId === '',
    );
    expect(
      rootless.filter(
        (span) =>
          span.name === 'mutation Signup' ||
          span.name === 'transaction' ||
          attribute(span, 'db.system.name') === 'mongodb',
      ),
    ).toEqual([]);
  });

  test('probes are not traced, and neither are the commands they send', async () => {
    const probeTrace = '3af7651916cd43dd8448eb211c80319f';
    for (const path of ['/health', '/ready']) {
      const probe = await fetch(`${url}${path}`, {
        headers: { traceparent: `00-${probeTrace}-b7ad6b7169203334-01` },
      });
      expect(probe.status).toBe(200);
    }
    // Once a traced request's spans are exported, the probes' would be too.
    await tracedRequestExported('4af7651916cd43dd8448eb211c80319a');
    expect(receiver.spans.filter((span) => span.traceId === probeTrace)).toEqual([]);
    // The readiness probe's ping ran outside any request's span: no trace of its own either.
    expect(receiver.spans.filter((span) => /^ping\b/.test(span.name))).toEqual([]);
  });

  test('a TRANSACTION creation shows its transaction, the parent of its commands', async () => {
    const traceId = '1af7651916cd43dd8448eb211c80319d';
    const answer = await postGraphQL<{ createUser: { error: unknown } }>(
      url,
      CREATE,
      { strategy: 'TRANSACTION' },
      {
        traceparent: `00-${traceId}-b7ad6b7169203332-01`,
      },
    );
    expect(answer.body.data?.createUser.error).toBeNull();
    const spans = await spansOf(
      receiver,
      traceId,
      (found) =>
        found.some((span) => span.name === 'transaction') &&
        found.some((span) => /commitTransaction/.test(span.name)),
    );
    const transaction = spans.find((span) => span.name === 'transaction') as ExportedSpan;
    expect(transaction).toBeDefined();
    expect(attribute(transaction, 'transaction.attempts')).toBeDefined();
    const commit = spans.find((span) => /commitTransaction/.test(span.name)) as ExportedSpan;
    expect(ancestors(commit, spans)).toContainEqual(transaction);
    const creation = spans.find(
      (span) => attribute(span, 'sequential_ids.strategy') === 'TRANSACTION',
    );
    expect(creation && attribute(creation, 'sequential_ids.transaction_retries')).toBeDefined();
  });
});

describe('a transaction retry', () => {
  const WRITE_CONFLICT = 112;

  test(
    'a WriteConflict on the insert runs the transaction again: the retry event, both attempts and the failed insert are in the trace',
    async () => {
      const receiver = await startReceiver();
      const standin = await startStandin({ log: () => undefined });
      const admin = await MongoClient.connect(standin.uri, {
        appName: 'traces-fail-points',
        serverSelectionTimeoutMS: 5_000,
      });
      const main = startMainProcess({
        NODE_ENV: 'test',
        MONGODB_URI: standin.uri,
        MONGODB_DB: 'traced_retries',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
      try {
        const url = await main.ready;
        await setFailPoint(
          admin,
          SERVICE_APP_NAME,
          { times: 1 },
          { failCommands: ['insert'], errorCode: WRITE_CONFLICT },
        );
        const traceId = '3af7651916cd43dd8448eb211c80319f';
        const answer = await postGraphQL<{ createUser: { error: unknown } }>(
          url,
          CREATE,
          { strategy: 'TRANSACTION' },
          { traceparent: `00-${traceId}-b7ad6b7169203334-01` },
        );
        expect(answer.body.data?.createUser.error).toBeNull();
        expect(await clearFailPoint(admin, SERVICE_APP_NAME)).toBe(1);

        const spans = await spansOf(
          receiver,
          traceId,
          (found) =>
            found.some((span) => span.name === 'transaction') &&
            found.some((span) => /commitTransaction/.test(span.name)) &&
            found.some((span) => attribute(span, 'sequential_ids.strategy') === 'TRANSACTION'),
        );
        const transaction = spans.find((span) => span.name === 'transaction') as ExportedSpan;
        expect(transaction).toBeDefined();
        expect(Number(attribute(transaction, 'transaction.attempts'))).toBe(2);
        const retries = (transaction.events ?? []).filter(
          (event) => event.name === 'transaction.retry',
        );
        expect(retries).toHaveLength(1);
        const retry = { attributes: retries[0].attributes ?? [] };
        expect(Number(attribute(retry, 'transaction.attempt'))).toBe(1);
        expect(attribute(retry, 'transaction.write_conflict')).toBe(true);
        // Both attempts' inserts are the transaction's children; the first failed.
        const inserts = spans.filter(
          (span) =>
            /insert/.test(span.name) &&
            (attribute(span, 'db.system') === 'mongodb' ||
              attribute(span, 'db.system.name') === 'mongodb'),
        );
        expect(inserts).toHaveLength(2);
        for (const insert of inserts) {
          expect(ancestors(insert, spans)).toContainEqual(transaction);
        }
        expect(inserts.filter((insert) => insert.status?.code === 2)).toHaveLength(1);
        const creation = spans.find(
          (span) => attribute(span, 'sequential_ids.strategy') === 'TRANSACTION',
        ) as ExportedSpan;
        expect(Number(attribute(creation, 'sequential_ids.transaction_retries'))).toBe(1);
      } finally {
        main.child.kill('SIGTERM');
        expect(await main.exited).toBe(0);
        await admin.close();
        await standin.stop();
        await receiver.close();
      }
    },
    MAIN_PROCESS_TIMEOUT_MS,
  );
});

describe('off', () => {
  /**
   * The OpenTelemetry modules a process has loaded after the service's modules, with `env`; but
   * the API package, which prom-client itself loads (its process CPU metric's exemplars), and which
   * does nothing without an SDK.
   */
  function loadedOpenTelemetry(env: Record<string, string>): string[] {
    const script = `require('./src/telemetry/start'); require('./src/http/index'); require('./src/components');
      console.log(JSON.stringify(Object.keys(require.cache).filter((m) => m.includes('@opentelemetry') && !m.includes('@opentelemetry/api/'))));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      timeout: MAIN_PROCESS_TIMEOUT_MS,
    });
    expect(run.status).toBe(0);
    return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '[]') as string[];
  }

  test(
    'without an endpoint, or with OTEL_SDK_DISABLED, no OpenTelemetry module is loaded',
    () => {
      expect(loadedOpenTelemetry({})).toEqual([]);
      expect(
        loadedOpenTelemetry({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
          OTEL_SDK_DISABLED: 'true',
        }),
      ).toEqual([]);
      // The same check sees them when tracing is on.
      expect(
        loadedOpenTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }).length,
      ).toBeGreaterThan(0);
    },
    3 * MAIN_PROCESS_TIMEOUT_MS,
  );

  test(
    'OTEL_SDK_DISABLED: requests are served and nothing is exported',
    async () => {
      const receiver = await startReceiver();
      const main = startMainProcess({
        NODE_ENV: 'test',
        MONGODB_URI: testMongoUri(),
        MONGODB_DB: uniqueDbName('untraced'),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_SDK_DISABLED: 'true',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
      try {
        const url = await main.ready;
        const answer = await postGraphQL<{ createUser: { error: unknown } }>(
          url,
          CREATE,
          {},
          {
            traceparent: '00-2af7651916cd43dd8448eb211c80319e-b7ad6b7169203333-01',
          },
        );
        expect(answer.body.data?.createUser.error).toBeNull();
      } finally {
        main.child.kill('SIGTERM');
        expect(await main.exited).toBe(0);
      }
      expect(receiver.contentTypes).toEqual([]);
      await receiver.close();
    },
    MAIN_PROCESS_TIMEOUT_MS,
  );
});
