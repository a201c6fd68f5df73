/**
 * Trusted documents (src/http/trusted-documents.ts) through the real HTTP server, with the manifest
 * the shipped client codegen emits for the example page (e2e/page/gql/persisted-documents.json):
 * in production a caller without a token runs only its documents, by hash or by identical text;
 * Apollo's APQ cannot be used to add one; a token runs anything; development is not bound; and
 * the real Apollo Client with its persisted-queries link creates a user.
 */
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateUserDocument } from '../../e2e/page/gql/graphql';
import { loadTrustedDocuments } from '../../src/http/trusted-documents';
import {
  ADMIN_HEADERS,
  CLIENT_HEADERS,
  startTestService,
  type TestService,
} from '../support/service';

const MANIFEST = path.join(__dirname, '..', '..', 'e2e', 'page', 'gql', 'persisted-documents.json');
const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const [createUserKey, createUserText] = Object.entries(manifest).find(([, text]) =>
  text.includes('mutation CreateUser('),
) as [string, string];
const createUserHash = createUserKey.replace(/^sha256:/, '');
const UNKNOWN = 'mutation { createUser(input: { name: "Outsider" }) { user { id } } }';

let production: TestService;
let development: TestService;

beforeAll(async () => {
  production = await startTestService({
    env: { NODE_ENV: 'production', TRUSTED_DOCUMENTS: MANIFEST },
  });
  development = await startTestService({ env: { TRUSTED_DOCUMENTS: MANIFEST } });
});

afterAll(async () => {
  await Promise.all([production.stop(), development.stop()]);
});

const userCount = (service: TestService) =>
  service.client.db(service.dbName).collection('users').countDocuments();

async function post(service: TestService, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: await response.json() };
}

const variables = (name: string) => ({ input: { name } });

describe('in production, without a token', () => {
  test('an unknown document is refused with UNTRUSTED_DOCUMENT and nothing runs', async () => {
    const before = await userCount(production);
    const refused = await post(production, { query: UNKNOWN });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].extensions).toEqual({
      code: 'UNTRUSTED_DOCUMENT',
      requestId: expect.any(String),
    });
    expect(await userCount(production)).toBe(before);
  });

  test('a document of the manifest runs by text, by persisted-query hash and by documentId', async () => {
    const before = await userCount(production);
    const byText = await post(production, { query: createUserText, variables: variables('text') });
    const byHash = await post(production, {
      variables: variables('hash'),
      extensions: { persistedQuery: { version: 1, sha256Hash: createUserHash } },
    });
    const byId = await post(production, {
      documentId: createUserKey,
      variables: variables('id'),
    });
    for (const answer of [byText, byHash, byId]) {
      expect(answer.status).toBe(200);
      expect(answer.body.data.createUser.user.id).toMatch(/^\d+$/);
    }
    expect(await userCount(production)).toBe(before + 3);
  });

  test('a hash with another text, and a text one character off, are refused', async () => {
    const otherText = await post(production, {
      query: UNKNOWN,
      extensions: { persistedQuery: { version: 1, sha256Hash: createUserHash } },
    });
    expect(otherText.status).toBe(403);
    const offByOne = await post(production, {
      query: `${createUserText} `,
      variables: variables('spaced'),
    });
    expect(offByOne.status).toBe(403);
  });

  test('a batch with one unknown operation is refused whole', async () => {
    const before = await userCount(production);
    const refused = await post(production, [
      { query: createUserText, variables: variables('batched') },
      { query: '{ viewer { role } }' },
    ]);
    expect(refused.status).toBe(403);
    expect(await userCount(production)).toBe(before);
  });

  test('APQ adds no document: not by registering one, not by a hash a client registered', async () => {
    const text = '{ viewer { role client } }';
    const hash = sha256(text);
    const apq = { persistedQuery: { version: 1, sha256Hash: hash } };
    const registering = await post(production, { query: text, extensions: apq });
    expect(registering.status).toBe(403);
    // A client may register it (tokens run any document)...
    const registered = await post(production, { query: text, extensions: apq }, CLIENT_HEADERS);
    expect(registered.body.data.viewer.role).toBe('CLIENT');
    // ...and Apollo's cache holds it now, but a caller without a token cannot reach it.
    const byClientHash = await post(production, { extensions: apq }, CLIENT_HEADERS);
    expect(byClientHash.body.data.viewer.role).toBe('CLIENT');
    const anonymous = await post(production, { extensions: apq });
    expect(anonymous.status).toBe(403);
    expect(anonymous.body.errors[0].extensions.code).toBe('UNTRUSTED_DOCUMENT');
  });

  test("the real Apollo Client with the persisted-queries link creates a user, sending the document's hash alone", async () => {
    const sent: unknown[] = [];
    const client = new ApolloClient({
      link: new PersistedQueryLink({
        // The client preset's hash of the document, as its manifest has it.
        generateHash: (document) => (document as { __meta__?: { hash: string } }).__meta__!.hash,
      }).concat(
        new HttpLink({
          uri: `${production.url}/graphql`,
          fetch: (input, init) => {
            sent.push(JSON.parse(String(init?.body)));
            return fetch(input, { ...init, signal: AbortSignal.timeout(30_000) });
          },
        }),
      ),
      cache: new InMemoryCache(),
    });
    const result = await client.mutate({
      mutation: CreateUserDocument,
      variables: { input: { name: 'Persisted', email: 'persisted@example.com' } },
    });
    expect(result.data?.createUser?.user).toMatchObject({ name: 'Persisted' });
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toHaveProperty('query');
  });
});

test('with a token any document runs; TRUSTED_DOCUMENTS_FOR=clients binds clients, never the admin', async () => {
  const open = await post(production, { query: UNKNOWN }, CLIENT_HEADERS);
  expect(open.body.data.createUser.user.id).toMatch(/^\d+$/);
  const strict = await startTestService({
    env: {
      NODE_ENV: 'production',
      TRUSTED_DOCUMENTS: MANIFEST,
      TRUSTED_DOCUMENTS_FOR: 'clients',
    },
  });
  try {
    expect((await post(strict, { query: UNKNOWN }, CLIENT_HEADERS)).status).toBe(403);
    const admin = await post(strict, { query: UNKNOWN }, ADMIN_HEADERS);
    expect(admin.body.data.createUser.user.id).toMatch(/^\d+$/);
  } finally {
    await strict.stop();
  }
});

test('outside production the manifest binds nobody: the Sandbox sends documents of its own', async () => {
  const answer = await post(development, { query: UNKNOWN });
  expect(answer.status).toBe(200);
  expect(answer.body.data.createUser.user.id).toMatch(/^\d+$/);
});

test('a manifest whose hash is not its text stops the start', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'manifest-'));
  const stale = path.join(dir, 'persisted-documents.json');
  writeFileSync(stale, JSON.stringify({ [createUserKey]: `${createUserText} ` }));
  expect(() => loadTrustedDocuments(stale, 'anonymous')).toThrow(/not the sha256 of its document/);
  expect(() => loadTrustedDocuments(path.join(dir, 'missing.json'), 'anonymous')).toThrow(
    /cannot read/,
  );
});
