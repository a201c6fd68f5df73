/**
 * One request id through everything: the `X-Request-Id` header of every answer, `requestId` in
 * every error's `extensions` (GraphQL's, the HTTP layer's, a WebSocket operation's), and the
 * `requestId` and `traceId` of every log line written while serving the request, read from a real
 * process's log. While tracing is off the id is the caller's plain `X-Request-Id` or a fresh UUID,
 * and the trace id is the one of the caller's `traceparent`.
 */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { uniqueDbName } from '../support/db';
import {
  MAIN_PROCESS_TIMEOUT_MS,
  startMainProcess,
  type MainProcess,
} from '../support/main-process';
import { CLIENT_HEADERS, startTestService } from '../support/service';
import { startFaultyDatabase, type FaultyDatabase } from './faulty-database';

const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

let database: FaultyDatabase;
let main: MainProcess;
let url: string;

beforeAll(async () => {
  database = await startFaultyDatabase();
  main = startMainProcess({
    NODE_ENV: 'test',
    MONGODB_URI: database.uri,
    MONGODB_DB: uniqueDbName('ids'),
  });
  url = await main.ready;
}, MAIN_PROCESS_TIMEOUT_MS);

afterAll(async () => {
  main.child.kill('SIGTERM');
  expect(await main.exited).toBe(0);
  await database.stop();
});

interface LogLine {
  msg: string;
  level: number;
  requestId?: string;
  traceId?: string;
}

/** The process's JSON log lines so far. */
function logLines(): LogLine[] {
  return main
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  return {
    header: response.headers.get('x-request-id'),
    body: (await response.json()) as {
      errors?: Array<{ extensions: { code: string; requestId?: string } }>;
    },
  };
}

test('a failing request: the header, the error and every log line name one id and the trace', async () => {
  const answer = await database.whileFind({ errorCode: 2 }, 'alwaysOn', () =>
    post(JSON.stringify({ query: '{ user(id: "1") { id } }' }), { traceparent: TRACEPARENT }),
  );
  expect(answer.header).toMatch(UUID);
  expect(answer.body.errors?.[0]?.extensions).toMatchObject({
    code: 'INTERNAL_SERVER_ERROR',
    requestId: answer.header,
  });
  // The log is written as the answer goes out; wait for the line rather than a fixed time.
  const deadline = Date.now() + 10_000;
  while (!logLines().some((line) => line.requestId === answer.header) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const lines = logLines().filter((line) => line.requestId === answer.header);
  expect(lines.map((line) => line.msg)).toContain('unexpected error in a GraphQL request');
  for (const line of lines) expect(line.traceId).toBe(TRACE_ID);
  // No line about that error without the ids.
  const unexpected = logLines().filter(
    (line) => line.msg === 'unexpected error in a GraphQL request',
  );
  expect(unexpected.every((line) => line.requestId !== undefined)).toBe(true);
});

test("a caller's plain X-Request-Id is kept; one that could break a log line is replaced", async () => {
  const query = JSON.stringify({ query: '{ viewer { role } }' });
  expect((await post(query, { 'x-request-id': 'edge-7f3a.42:9' })).header).toBe('edge-7f3a.42:9');
  // (fetch itself refuses control characters in a header.)
  for (const hostile of ['two words', 'x'.repeat(65), '"quoted"', 'semi;colon', '<tag>']) {
    expect((await post(query, { 'x-request-id': hostile })).header).toMatch(UUID);
  }
});

test("the HTTP layer's own refusals carry the id too", async () => {
  const malformed = await post('{"query": ', { 'x-request-id': 'malformed-1' });
  expect(malformed.body.errors?.[0]?.extensions).toEqual({
    code: 'BAD_REQUEST',
    requestId: 'malformed-1',
  });
  const probe = await fetch(`${url}/health`);
  expect(probe.headers.get('x-request-id')).toMatch(UUID);
});

test('each WebSocket operation has an id of its own, in its errors', async () => {
  const service = await startTestService();
  try {
    const client = createClient({
      url: `${service.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: CLIENT_HEADERS,
      retryAttempts: 0,
    });
    const errorsOf = (query: string) =>
      new Promise<Array<{ extensions?: { requestId?: string } }>>((resolve, reject) => {
        client.subscribe(
          { query },
          {
            next: () => reject(new Error('an event for an invalid subscription')),
            error: (errors) => resolve(errors as Array<{ extensions?: { requestId?: string } }>),
            complete: () => reject(new Error('completed without an error')),
          },
        );
      });
    const [first, second] = await Promise.all([
      errorsOf('subscription { userCreated { nope } }'),
      errorsOf('subscription { userCreated { alsoNope } }'),
    ]);
    expect(first[0]?.extensions?.requestId).toMatch(UUID);
    expect(second[0]?.extensions?.requestId).toMatch(UUID);
    expect(first[0]?.extensions?.requestId).not.toBe(second[0]?.extensions?.requestId);
    await client.dispose();
  } finally {
    await service.stop();
  }
});
