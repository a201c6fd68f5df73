/**
 * Sequences through the real HTTP server, as a client caches them (issue 12): `Sequence.id` is stable,
 * `Query.sequence` finds one, `sequences` is a paginated connection, `allocateSequence` and
 * `setSequence` answer the updated `Sequence`, and expected failures (not found, exhausted, a
 * conflicting definition) are data in the payload's `error`. A typo never starts a new counter. Also:
 * peeking has no side effects, drift, concurrent allocations, the admin guard on setSequence, the
 * Long scalar's edges, and the per-request cap on listing (issue 11, finding 4).
 *
 * Requests without a token act as the open-access client (NODE_ENV=test); `userid` is read and set
 * as admin.
 */
import { Long } from 'mongodb';
import {
  ADMIN_HEADERS as ADMIN,
  CLIENT_HEADERS as CLIENT,
  startTestService,
  TEST_ADMIN_TOKEN,
  TEST_CLIENT,
  type TestService,
} from '../support/service';
const SEQUENCE_FIELDS = 'id name scope owner value next start step max updatedAt drift';
const ERROR_FIELDS = 'error { code message field retryable }';
const NEXT = `query Next($name: String!, $scope: String) { nextSequence(name: $name, scope: $scope) }`;
const ONE = `query One($name: String!, $scope: String) { sequence(name: $name, scope: $scope) { ${SEQUENCE_FIELDS} } }`;
const LIST = `query List($first: Int, $after: String, $scope: String) {
  sequences(first: $first, after: $after, scope: $scope) {
    edges { cursor node { ${SEQUENCE_FIELDS} } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;
const DEFINE = `mutation Define($input: CreateSequenceInput!) {
  createSequence(input: $input) { sequence { ${SEQUENCE_FIELDS} } ${ERROR_FIELDS} }
}`;
const ALLOCATE = `mutation Allocate($name: String!, $count: Int, $scope: String) {
  allocateSequence(name: $name, count: $count, scope: $scope) {
    range { first last step count } sequence { id value next } ${ERROR_FIELDS}
  }
}`;
const SET = `mutation Set($name: String!, $value: Long!, $scope: String) {
  setSequence(name: $name, value: $value, scope: $scope) { sequence { id name value next } ${ERROR_FIELDS} }
}`;
const CREATE_USER = `mutation Create($input: CreateUserInput!, $strategy: IdStrategy) {
  createUser(input: $input, strategy: $strategy) { user { id } }
}`;

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
  // Only createSequence creates: every sequence the tests below use is defined first.
  for (const input of [
    { name: 'invoice', scope: 'acme', start: 1000, max: 9999 },
    { name: 'fresh-under-load' },
    { name: 'batch' },
    { name: 'guarded' },
    { name: 'longs' },
  ]) {
    const defined = await service.graphql(DEFINE, { input });
    expect(defined.body.data.createSequence.error).toBeNull();
  }
});

afterAll(async () => {
  await service.stop();
});

const nextUserId = async () =>
  (await service.graphql(NEXT, { name: 'userid' }, ADMIN)).body.data.nextSequence;

const counters = () => service.client.db(service.dbName).collection('counters');

test('nextSequence has no side effects and names the id the next user gets', async () => {
  expect(await nextUserId()).toBe(1);
  expect(await nextUserId()).toBe(1);
  for (let i = 0; i < 3; i += 1) {
    const peeked = await nextUserId();
    expect(await nextUserId()).toBe(peeked);
    const created = await service.graphql(CREATE_USER, { input: { name: `User ${i}` } });
    expect(created.body.data.createUser.user.id).toBe(String(peeked));
  }
  expect(await nextUserId()).toBe(4);
});

describe('what a cache needs', () => {
  test('Sequence.id is stable from name and scope, and Query.sequence finds it', async () => {
    const one = await service.graphql(ONE, { name: 'invoice', scope: 'acme' });
    expect(one.body.data.sequence).toMatchObject({
      id: 'invoice/acme',
      name: 'invoice',
      scope: 'acme',
      owner: 'anonymous',
      start: 1000,
      next: 1000,
      max: 9999,
      drift: null,
    });
    const unscoped = await service.graphql(ONE, { name: 'batch' });
    expect(unscoped.body.data.sequence.id).toBe('batch');
    expect((await service.graphql(ONE, { name: 'nothing-here' })).body.data.sequence).toBeNull();
  });

  test('allocateSequence answers the range and the updated sequence, with the same id', async () => {
    const first = await service.graphql(ALLOCATE, { name: 'batch', count: 10 });
    expect(first.body.data.allocateSequence).toEqual({
      range: { first: 1, last: 10, step: 1, count: 10 },
      sequence: { id: 'batch', value: 10, next: 11 },
      error: null,
    });
    const second = await service.graphql(ALLOCATE, { name: 'batch', count: 1 });
    expect(second.body.data.allocateSequence.range).toMatchObject({ first: 11, last: 11 });
    expect(second.body.data.allocateSequence.sequence).toEqual({
      id: 'batch',
      value: 11,
      next: 12,
    });
    const read = await service.graphql(NEXT, { name: 'batch' });
    expect(read.body.data.nextSequence).toBe(12);
  });

  test('setSequence answers the updated sequence', async () => {
    // The admin names a client's sequence `<client>~<name>`, as its stored id reads (the
    // anonymous caller of development mode acts as the client "anonymous").
    const response = await service.graphql(SET, { name: 'anonymous~guarded', value: 500 }, ADMIN);
    expect(response.body.data.setSequence).toEqual({
      sequence: { id: 'anonymous~guarded', name: 'guarded', value: 500, next: 501 },
      error: null,
    });
    expect((await service.graphql(NEXT, { name: 'guarded' })).body.data.nextSequence).toBe(501);
  });
});

describe('a typo never starts a new counter (only createSequence creates)', () => {
  test('allocateSequence of an undefined name is SEQUENCE_NOT_FOUND as data, and writes nothing', async () => {
    const before = await counters().countDocuments();
    const response = await service.graphql(ALLOCATE, { name: 'invioce', scope: 'acme' });
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.allocateSequence).toEqual({
      range: null,
      sequence: null,
      error: {
        code: 'SEQUENCE_NOT_FOUND',
        message: expect.stringContaining('invioce'),
        field: 'name',
        retryable: false,
      },
    });
    expect(await counters().countDocuments()).toBe(before);
  });

  test('nextSequence of an undefined name is a SEQUENCE_NOT_FOUND error, and setSequence one as data', async () => {
    const next = await service.graphql(NEXT, { name: 'invoce' });
    expect(next.body.data).toEqual({ nextSequence: null });
    expect(next.body.errors?.[0]?.extensions).toMatchObject({ code: 'SEQUENCE_NOT_FOUND' });
    const set = await service.graphql(SET, { name: 'invoce', value: 5 }, ADMIN);
    expect(set.body.data.setSequence.error.code).toBe('SEQUENCE_NOT_FOUND');
    expect(await counters().countDocuments({ name: 'invoce' })).toBe(0);
  });
});

describe('sequences, a paginated connection', () => {
  test('pages forward with cursors, in name then scope order, and refuses a page over 100', async () => {
    const all: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const response = await service.graphql(LIST, { first: 2, after }, ADMIN);
      expect(response.body.errors).toBeUndefined();
      const page: {
        edges: Array<{ cursor: string; node: { id: string } }>;
        pageInfo: {
          hasNextPage: boolean;
          hasPreviousPage: boolean;
          startCursor: string | null;
          endCursor: string | null;
        };
      } = response.body.data.sequences;
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      expect(page.edges.map((edge) => edge.cursor)).toEqual(page.edges.map((edge) => edge.node.id));
      expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
      all.push(...page.edges.map((edge) => edge.node.id));
      pages += 1;
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(pages).toBeGreaterThan(2);
    expect(all).toEqual([...all].sort());
    // The admin sees every namespace: a client's sequences by their stored ids.
    expect(all).toEqual(
      expect.arrayContaining([
        'anonymous~batch',
        'anonymous~guarded',
        'anonymous~invoice/acme',
        'userid',
      ]),
    );
    const tooMany = await service.graphql(LIST, { first: 101 }, ADMIN);
    expect(tooMany.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'first',
    });
  });

  test('a client lists only its own sequences and userid; the admin lists all, with userid and its drift', async () => {
    await service.graphql(DEFINE, { input: { name: 'private', scope: 'tenant-b' } }, CLIENT);
    const mine = await service.graphql(LIST, { first: 100 }, CLIENT);
    expect(mine.body.data.sequences.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([
      'private/tenant-b',
      'userid',
    ]);
    const open = await service.graphql(LIST, { first: 100 });
    const openIds = open.body.data.sequences.edges.map((e: { node: { id: string } }) => e.node.id);
    expect(openIds).not.toContain('private/tenant-b');
    expect(openIds).toContain('userid');

    await service.graphql(CREATE_USER, {
      input: { name: 'Drift maker' },
      strategy: 'OPTIMISTIC_LOOP',
    });
    const admin = await service.graphql(LIST, { first: 100 }, ADMIN);
    const nodes = admin.body.data.sequences.edges.map(
      (e: { node: Record<string, unknown> }) => e.node,
    );
    const userid = nodes.find((node: { id: string }) => node.id === 'userid');
    expect(userid).toMatchObject({ scope: null, start: 1, step: 1, max: null, owner: null });
    expect(userid.drift).toBe(-1); // the optimistic insert took max + 1 without moving the counter
    expect(
      nodes
        .filter((node: { id: string }) => node.id !== 'userid')
        .every((node: { drift: unknown }) => node.drift === null),
    ).toBe(true);
  });

  test('finding 4: with 150 counters, aliased listings answer at most 100 each, and /metrics stays small', async () => {
    const define = Array.from(
      { length: 150 },
      (_, i) =>
        `d${i}: createSequence(input: { name: "many", scope: "s${String(i).padStart(3, '0')}" }) { error { code } }`,
    );
    for (let i = 0; i < define.length; i += 15) {
      const response = await service.graphql(
        `mutation { ${define.slice(i, i + 15).join(' ')} }`,
        {},
        ADMIN,
      );
      expect(response.body.errors).toBeUndefined();
    }
    // Eight is what the cost limit lets through in one operation (15 aliases cost 27,000 > 15,000).
    const aliases = Array.from(
      { length: 8 },
      (_, i) => `l${i}: sequences(first: 100) { edges { node { id } } pageInfo { hasNextPage } }`,
    );
    const listed = await service.graphql(`{ ${aliases.join(' ')} }`, {}, ADMIN);
    expect(listed.body.errors).toBeUndefined();
    const sizes = Object.values(
      listed.body.data as Record<string, { edges: unknown[]; pageInfo: { hasNextPage: boolean } }>,
    ).map((connection) => [connection.edges.length, connection.pageInfo.hasNextPage]);
    expect(sizes).toEqual(Array.from({ length: 8 }, () => [100, true]));
    for (let i = 0; i < 40; i += 1) {
      await service.graphql(
        ALLOCATE,
        { name: 'many', scope: `s${String(i).padStart(3, '0')}` },
        ADMIN,
      );
    }
    const metrics = await (await fetch(`${service.url}/metrics`, { headers: CLIENT })).text();
    const labels = new Set(
      [
        ...metrics.matchAll(
          /^sequential_ids_counter_document_writes_total\{[^}]*sequence="([^"]*)"/gm,
        ),
      ].map((m) => m[1]),
    );
    expect(labels.size).toBeLessThanOrEqual(17);
  });
});

test('200 concurrent allocations of a new sequence get 200 distinct consecutive values', async () => {
  const responses = await Promise.all(
    Array.from({ length: 200 }, () => service.graphql(ALLOCATE, { name: 'fresh-under-load' })),
  );
  const firsts = responses.map((r) => {
    expect(r.body.errors).toBeUndefined();
    return r.body.data.allocateSequence.range.first as number;
  });
  expect(new Set(firsts).size).toBe(200);
  expect([...firsts].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  expect((await service.graphql(NEXT, { name: 'fresh-under-load' })).body.data.nextSequence).toBe(
    201,
  );
});

describe('setSequence', () => {
  test('needs the admin token: FORBIDDEN for a client, and nothing changes', async () => {
    const before = await service.graphql(NEXT, { name: 'longs' });
    const attempts: Array<[Record<string, string>, string]> = [
      [{}, 'FORBIDDEN'],
      [{ authorization: 'Bearer wrong-token-wrong-token' }, 'UNAUTHENTICATED'],
      [{ authorization: TEST_ADMIN_TOKEN }, 'UNAUTHENTICATED'],
      [CLIENT, 'FORBIDDEN'],
    ];
    for (const [headers, code] of attempts) {
      const response = await service.graphql(SET, { name: 'longs', value: 500 }, headers);
      expect(response.body.data?.setSequence ?? null).toBeNull();
      expect(response.body.errors?.[0]?.extensions?.code).toBe(code);
    }
    expect((await service.graphql(NEXT, { name: 'longs' })).body).toEqual(before.body);
  });

  test('moves userid forward only', async () => {
    const created = await service.graphql(CREATE_USER, { input: { name: 'Keeps its id' } });
    const id = Number(created.body.data.createUser.user.id);
    const refused = await service.graphql(SET, { name: 'userid', value: id - 1 }, ADMIN);
    expect(refused.body.data.setSequence).toMatchObject({
      sequence: null,
      error: { code: 'BAD_USER_INPUT', field: 'value' },
    });
    expect(await nextUserId()).toBe(id + 1);
    const allowed = await service.graphql(SET, { name: 'userid', value: id + 10 }, ADMIN);
    expect(allowed.body.data.setSequence.sequence).toMatchObject({ id: 'userid', next: id + 11 });
  });
});

describe('Long scalar', () => {
  const MAX = Number.MAX_SAFE_INTEGER;

  test.each([
    ['a number', 42, 42],
    ['a string of digits', '43', 43],
    ['the largest safe integer', MAX - 1, MAX - 1],
  ])('accepts %s', async (_label, value, expected) => {
    const response = await service.graphql(SET, { name: 'anonymous~longs', value }, ADMIN);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.setSequence.sequence.value).toBe(expected);
  });

  test.each([
    ['a fraction', 1.5],
    ['2^53', 2 ** 53],
    ['a string beyond 2^53 - 1', '9007199254740993'],
    ['text', 'twelve'],
    ['a boolean', true],
  ])('refuses %s in variables with BAD_USER_INPUT', async (_label, value) => {
    const response = await service.graphql(SET, { name: 'anonymous~longs', value }, ADMIN);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  test.each(['1.5', '9007199254740992', '"x"', 'true'])(
    'refuses the literal %s with BAD_USER_INPUT',
    async (literal) => {
      const response = await service.graphql(
        `mutation { setSequence(name: "anonymous~longs", value: ${literal}) { sequence { value } } }`,
        {},
        ADMIN,
      );
      expect(response.status).toBe(400);
      expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    },
  );

  test('a value beyond 2^53 - 1 is refused before anything changes', async () => {
    const before = await service.graphql(NEXT, { name: 'longs' });
    await service.graphql(SET, { name: 'anonymous~longs', value: '99999999999999999999' }, ADMIN);
    expect((await service.graphql(NEXT, { name: 'longs' })).body).toEqual(before.body);
  });
});

describe('refused sequence input names its field', () => {
  test.each([
    ['a name starting with a digit', ALLOCATE, { name: '1abc' }, 'name'],
    ['a name with $', ALLOCATE, { name: '$inc' }, 'name'],
    ['a dotted operator-like scope', ALLOCATE, { name: 'ok', scope: '$where' }, 'scope'],
    ['a name over 64 characters', ALLOCATE, { name: `a${'b'.repeat(64)}` }, 'name'],
    ['count 0', ALLOCATE, { name: 'batch', count: 0 }, 'count'],
    ['count above 10,000', ALLOCATE, { name: 'batch', count: 10_001 }, 'count'],
    ['step 0', DEFINE, { input: { name: 'stepless', step: 0 } }, 'step'],
    ['max below start', DEFINE, { input: { name: 'upside', start: 10, max: 5 } }, 'max'],
  ])('%s: BAD_USER_INPUT as data', async (_label, operation, variables, field) => {
    const response = await service.graphql(operation, variables);
    expect(response.body.errors).toBeUndefined();
    const payload = Object.values(response.body.data as Record<string, { error: unknown }>)[0];
    expect(payload.error).toMatchObject({ code: 'BAD_USER_INPUT', field, retryable: false });
  });

  test('nextSequence of a bad name: a top-level BAD_USER_INPUT (queries have no payload)', async () => {
    const response = await service.graphql(NEXT, { name: 'bad name' });
    expect(response.body.data).toEqual({ nextSequence: null });
    expect(response.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'name',
    });
  });

  test('createSequence is idempotent and refuses a conflicting definition', async () => {
    const input = { name: 'interleaved', start: 3, step: 4, max: 100 };
    const first = await service.graphql(DEFINE, { input });
    expect(first.body.data.createSequence.sequence).toMatchObject({
      id: 'interleaved',
      name: 'interleaved',
      scope: null,
      start: 3,
      step: 4,
      max: 100,
      value: -1,
      next: 3,
    });
    expect((await service.graphql(DEFINE, { input })).body.data).toEqual(first.body.data);
    const conflicting = await service.graphql(DEFINE, { input: { ...input, step: 5 } });
    expect(conflicting.body.data.createSequence).toMatchObject({
      sequence: null,
      error: { code: 'BAD_USER_INPUT', field: 'step' },
    });
  });

  test('allocating past max is SEQUENCE_EXHAUSTED as data and consumes nothing', async () => {
    await service.graphql(DEFINE, { input: { name: 'tiny', max: 3 } });
    const taken = await service.graphql(ALLOCATE, { name: 'tiny', count: 2 });
    expect(taken.body.data.allocateSequence.range).toMatchObject({ first: 1, last: 2 });
    const refused = await service.graphql(ALLOCATE, { name: 'tiny', count: 2 });
    expect(refused.body.data.allocateSequence).toMatchObject({
      range: null,
      error: { code: 'SEQUENCE_EXHAUSTED', retryable: false },
    });
    expect((await service.graphql(NEXT, { name: 'tiny' })).body.data.nextSequence).toBe(3);
  });
});

describe('a counter written by someone else with wrong types', () => {
  // Its own database: the corrupt documents must not reach the other tests' listings.
  let own: TestService;
  /** The stored id of the test client's sequence `name`. */
  const stored = (name: string) => `${TEST_CLIENT.client}~${name}`;
  beforeAll(async () => {
    own = await startTestService();
    for (const name of ['alpha', 'delta', 'omega']) {
      await own.graphql(DEFINE, { input: { name } }, CLIENT);
    }
    const raw = own.client.db(own.dbName).collection('counters');
    // A foreign tool's documents in the client's namespace: seq a string; step missing with seq a
    // string; start a string.
    await raw.insertMany([
      { _id: stored('beta') as never, name: 'beta', owner: TEST_CLIENT.client, seq: '17', step: 1 },
      { _id: stored('gamma') as never, name: 'gamma', owner: TEST_CLIENT.client, seq: 'x' },
      {
        _id: stored('kappa') as never,
        name: 'kappa',
        owner: TEST_CLIENT.client,
        seq: Long.fromNumber(4),
        start: '1',
        step: 1,
      },
    ]);
  });
  afterAll(() => own.stop());

  const LIST_MARKED = `query List($first: Int, $after: String) {
    sequences(first: $first, after: $after) {
      edges { cursor node { id value next } ${ERROR_FIELDS} }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }`;

  interface MarkedPage {
    edges: Array<{
      cursor: string;
      node: { id: string; value: number } | null;
      error: { code: string; message: string; field: string | null; retryable: boolean } | null;
    }>;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  }

  /** Every page of `first`, as the admin sees it; at most 20 pages. */
  async function listAll(first: number, headers: Record<string, string>) {
    const pages: MarkedPage[] = [];
    let after: string | null = null;
    do {
      const response = await own.graphql(LIST_MARKED, { first, after }, headers);
      expect(response.body.errors).toBeUndefined();
      pages.push(response.body.data.sequences);
      after = pages.at(-1)!.pageInfo.endCursor;
    } while (pages.at(-1)!.pageInfo.hasNextPage && pages.length < 20);
    return pages;
  }

  test('is listed in its place as SEQUENCE_CORRUPT beside the others, which still read; paging stays exact', async () => {
    for (const first of [1, 2, 100]) {
      const pages = await listAll(first, CLIENT);
      const edges = pages.flatMap((page) => page.edges);
      expect(edges.map((edge) => edge.cursor)).toEqual([
        'alpha',
        'beta',
        'delta',
        'gamma',
        'kappa',
        'omega',
      ]);
      for (const edge of edges) {
        if (['beta', 'gamma', 'kappa'].includes(edge.cursor)) {
          expect(edge.node).toBeNull();
          expect(edge.error).toMatchObject({
            code: 'SEQUENCE_CORRUPT',
            field: null,
            retryable: false,
          });
          // The repair names the stored id, which the operator types.
          expect(edge.error?.message).toContain(`"${stored(edge.cursor)}"`);
          expect(edge.error?.message).toMatch(/db\.counters\.updateOne/);
        } else {
          expect(edge).toMatchObject({ node: { id: edge.cursor, value: 0 }, error: null });
        }
      }
      expect(pages.map((page) => page.edges.length)).toEqual(
        pages.map((_, i) => Math.min(first, 6 - i * first)),
      );
    }
  });

  test('sequence, nextSequence and allocateSequence name it SEQUENCE_CORRUPT and change nothing', async () => {
    const raw = own.client.db(own.dbName).collection('counters');
    for (const name of ['beta', 'gamma', 'kappa']) {
      const before = await raw.findOne({ _id: stored(name) as never });
      const read = await own.graphql(
        `query Read($name: String!) { sequence(name: $name) { id } nextSequence(name: $name) }`,
        { name },
        CLIENT,
      );
      expect(read.body.data).toEqual({ sequence: null, nextSequence: null });
      expect(read.body.errors?.map((error) => error.extensions?.code)).toEqual([
        'SEQUENCE_CORRUPT',
        'SEQUENCE_CORRUPT',
      ]);
      const allocated = await own.graphql(ALLOCATE, { name, count: 1 }, CLIENT);
      expect(allocated.body.errors).toBeUndefined();
      expect(allocated.body.data.allocateSequence).toMatchObject({
        range: null,
        error: { code: 'SEQUENCE_CORRUPT' },
      });
      expect(await raw.findOne({ _id: stored(name) as never })).toEqual(before);
    }
  });
});
