/**
 * The JSON body reader (src/http/json-body.ts): a plain JSON body takes raw-body's shortcut, every
 * other goes through body-parser, and the answer never depends on the path. Each body below is sent
 * over a real socket both ways (the shortcut's headers; chunked, which body-parser reads), and once
 * gzip-compressed, and the answers are compared: status, error code, and the users stored.
 */
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { isPlainJsonBody } from '../../src/http/json-body';
import { CLIENT_HEADERS, startTestService, type TestService } from '../support/service';

const BODY_LIMIT_BYTES = 8 * 1024;

/** How a body is sent: the shortcut's headers, or chunked or gzip-compressed (body-parser's). */
type Path = 'shortcut' | 'chunked' | 'gzip';

interface Answer {
  status: number;
  codes: string[];
  messages: string[];
  ids: string[];
}

/** POSTs `bytes` to /graphql the way `path` says, and reads the answer. */
function send(service: TestService, bytes: Buffer, path: Path): Promise<Answer> {
  const body = path === 'gzip' ? gzipSync(bytes) : bytes;
  const headers: Record<string, string> = {
    ...CLIENT_HEADERS,
    'content-type': 'application/json',
    ...(path === 'chunked' ? { 'transfer-encoding': 'chunked' } : {}),
    ...(path === 'gzip' ? { 'content-encoding': 'gzip' } : {}),
    ...(path === 'chunked' ? {} : { 'content-length': String(body.length) }),
  };
  return new Promise((resolve, reject) => {
    const req = request(
      `${service.url}/graphql`,
      { method: 'POST', headers, timeout: 15_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const parsed = JSON.parse(text) as unknown;
          const answers = (Array.isArray(parsed) ? parsed : [parsed]) as Array<{
            errors?: Array<{ message: string; extensions?: { code?: string } }>;
            data?: { createUser?: { user?: { id: string } | null } };
          }>;
          resolve({
            status: res.statusCode ?? 0,
            codes: answers.flatMap((a) => (a.errors ?? []).map((e) => e.extensions?.code ?? '')),
            messages: answers.flatMap((a) => (a.errors ?? []).map((e) => e.message)),
            ids: answers.flatMap((a) =>
              a.data?.createUser?.user ? [a.data.createUser.user.id] : [],
            ),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', reject);
    // Chunked: two writes, so the body arrives in pieces.
    if (path === 'chunked' && body.length > 1) {
      req.write(body.subarray(0, 1));
      req.end(body.subarray(1));
    } else req.end(body);
  });
}

const create = (name: string) =>
  JSON.stringify({
    query: 'mutation($input: CreateUserInput!) { createUser(input: $input) { user { id } } }',
    variables: { input: { name } },
  });

/** Each body, and what it must answer (whichever path reads it). */
const BODIES: Array<{ what: string; bytes: () => Buffer; status: number; codes: string[] }> = [
  { what: 'a createUser', bytes: () => Buffer.from(create('Plain')), status: 200, codes: [] },
  {
    what: 'a createUser after a byte order mark',
    bytes: () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(create('Bom'))]),
    status: 200,
    codes: [],
  },
  {
    what: 'a batch after JSON whitespace',
    bytes: () => Buffer.from(` \t\r\n[${create('Batch 1')},${create('Batch 2')}]`),
    status: 200,
    codes: [],
  },
  {
    what: 'malformed JSON',
    bytes: () => Buffer.from('{"query": '),
    status: 400,
    codes: ['BAD_REQUEST'],
  },
  {
    what: 'a JSON string, not an object or array',
    bytes: () => Buffer.from('"mutation { createUser }"'),
    status: 400,
    codes: ['BAD_REQUEST'],
  },
  {
    what: 'a JSON number after whitespace',
    bytes: () => Buffer.from('  42'),
    status: 400,
    codes: ['BAD_REQUEST'],
  },
  {
    what: 'a name past the input bound (refused on the raw bytes)',
    bytes: () => Buffer.from(create('n'.repeat(5_000))),
    status: 400,
    codes: ['BAD_USER_INPUT'],
  },
  {
    what: 'a body over BODY_LIMIT',
    bytes: () =>
      Buffer.from(
        JSON.stringify({ query: `{ viewer { role } }`, pad: 'x'.repeat(BODY_LIMIT_BYTES) }),
      ),
    status: 413,
    codes: ['PAYLOAD_TOO_LARGE'],
  },
];

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { BODY_LIMIT: '8kb' } });
});

afterAll(async () => {
  await service.stop();
});

const storedNames = async (ids: string[]) => {
  const docs = await service.client
    .db(service.dbName)
    .collection<{ _id: unknown; name: string }>('users')
    .find({}, { projection: { name: 1 } })
    .toArray();
  return docs.filter((doc) => ids.includes(String(doc._id))).map((doc) => doc.name);
};

describe.each(BODIES)('$what', ({ bytes, status, codes }) => {
  test('answers the same whichever path reads it', async () => {
    const [shortcut, chunked, gzip] = await Promise.all(
      (['shortcut', 'chunked', 'gzip'] as const).map((path) => send(service, bytes(), path)),
    );
    expect({ status: shortcut.status, codes: shortcut.codes }).toEqual({ status, codes });
    expect(shortcut.ids.length > 0).toBe(status === 200);
    for (const other of [chunked, gzip]) {
      expect({ ...other, ids: other.ids.length }).toEqual({
        ...shortcut,
        ids: shortcut.ids.length,
      });
    }
  });
});

test('invalid UTF-8 is decoded alike on both paths (U+FFFD), and stored alike', async () => {
  const invalid = Buffer.concat([
    Buffer.from(create('Before').slice(0, -5)),
    Buffer.from([0xc3, 0x28]), // a two-byte sequence cut short
    Buffer.from(create('Before').slice(-5)),
  ]);
  const shortcut = await send(service, invalid, 'shortcut');
  const chunked = await send(service, invalid, 'chunked');
  expect({ ...shortcut, ids: shortcut.ids.length }).toEqual({
    ...chunked,
    ids: chunked.ids.length,
  });
  if (shortcut.ids.length > 0) {
    const names = await storedNames([...shortcut.ids, ...chunked.ids]);
    expect(names).toHaveLength(2);
    expect(names[0]).toBe(names[1]);
  }
});

describe('isPlainJsonBody: which header sets take the shortcut', () => {
  const plain = { 'content-type': 'application/json', 'content-length': '10' };
  test.each([
    [{ ...plain }, true],
    [{ ...plain, 'content-type': 'Application/JSON; charset=UTF-8' }, true],
    [{ ...plain, 'content-type': 'application/json;charset=utf-8' }, true],
    [{ ...plain, 'content-type': 'application/json; charset=utf-16' }, false],
    [{ ...plain, 'content-type': 'application/json; charset="utf-8"' }, false],
    [{ ...plain, 'content-type': 'application/graphql-response+json' }, false],
    [{ ...plain, 'content-type': 'text/plain' }, false],
    [{ 'content-type': 'application/json' }, false],
    [{ ...plain, 'content-encoding': 'gzip' }, false],
    [{ ...plain, 'content-encoding': 'identity' }, false],
    [{ ...plain, 'transfer-encoding': 'chunked' }, false],
  ])('%o: %s', (headers, expected) => {
    expect(isPlainJsonBody({ headers })).toBe(expected);
  });
});
