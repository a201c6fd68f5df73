/**
 * Importing users with the ids they already had, through the real HTTP server and driver:
 * - 10,000 users with holes in their ids, a few ids already taken (refused item by item, the rest
 *   stored), the `userid` counter moved forward to the largest imported id, never back;
 * - the same import sent again answers every stored user as replayed and changes nothing;
 * - then 1,000 creations with each strategy, 50 clients at once: no duplicate id, every new id above the
 *   largest imported one, and for COUNTER and TRANSACTION the counter equal to the largest id.
 * Also `advanceSequence`: forward only, idempotent, a client's own sequences only.
 */
import { ID_STRATEGIES } from '../../src/strategies';
import {
  ADMIN_HEADERS,
  CLIENT_HEADERS,
  startPatientService,
  type TestService,
} from '../support/service';

const IMPORT = `mutation Import($inputs: [ImportUserInput!]!) {
  importUsers(inputs: $inputs) {
    imported replayed failed
    results { index replayed user { id name email importedAt createdAt createdWith } error { code field } }
    error { code message }
  }
}`;
const CREATE_USER = `mutation Create($input: CreateUserInput!, $strategy: IdStrategy) {
  createUser(input: $input, strategy: $strategy) { user { id } error { code retryable } }
}`;
const ADVANCE = `mutation Advance($name: String!, $to: Long!) {
  advanceSequence(name: $name, to: $to) { sequence { value next } error { code field } }
}`;

let service: TestService;

beforeAll(async () => {
  service = await startPatientService();
});

afterAll(async () => {
  await service.stop();
});

const db = () => service.client.db(service.dbName);
const counterSeq = async () =>
  Number(
    (
      await db()
        .collection('counters')
        .findOne({ _id: 'userid' as never })
    )?.seq,
  );
const largestStored = async () =>
  Number(
    (
      await db()
        .collection('users')
        .find({}, { sort: { _id: -1 }, limit: 1 })
        .toArray()
    )[0]?._id,
  );

test('10,000 imported with their ids, then 1,000 creations per strategy by 50 clients, above them', async () => {
  // Three users the service numbered first: ids 1..3, of which the import names 3 (taken).
  for (const name of ['First', 'Second', 'Third']) {
    const created = await service.graphql(CREATE_USER, { input: { name } }, CLIENT_HEADERS);
    expect(created.body.data.createUser.error).toBeNull();
  }
  // Ids 3, 6, 9, ...: a hole of two between each; the largest is 30,000.
  const inputs = Array.from({ length: 10_000 }, (_, i) => ({
    id: String(3 * (i + 1)),
    name: `Imported ${i}`,
    ...(i % 10 === 0 ? { email: `imported-${i}@example.com` } : {}),
  }));
  // A taken email (item 20 repeats item 10's): refused alone.
  inputs[20] = { ...inputs[20], email: 'imported-10@example.com' };
  const answers = [];
  for (let from = 0; from < inputs.length; from += 1_000) {
    const answer = await service.graphql(
      IMPORT,
      { inputs: inputs.slice(from, from + 1_000) },
      ADMIN_HEADERS,
    );
    expect(answer.body.errors).toBeUndefined();
    answers.push(answer.body.data.importUsers);
  }
  const results = answers.flatMap((answer) => answer.results);
  expect(results[0].error).toEqual({ code: 'ID_TAKEN', field: 'id' });
  expect(results[20].error).toEqual({ code: 'EMAIL_TAKEN', field: 'email' });
  expect(results.filter((result) => result.error !== null)).toHaveLength(2);
  expect(answers.reduce((sum, answer) => sum + answer.imported, 0)).toBe(9_998);
  expect(results[1].user).toMatchObject({
    id: '6',
    name: 'Imported 1',
    createdWith: 'COUNTER',
    importedAt: expect.any(String),
  });
  expect(await counterSeq()).toBe(30_000);

  // Sent again: every stored one is a replay, the refused ones are refused again, nothing moves.
  const again = await service.graphql(IMPORT, { inputs: inputs.slice(0, 1_000) }, ADMIN_HEADERS);
  expect(again.body.data.importUsers).toMatchObject({ imported: 0, replayed: 998, failed: 2 });
  expect(await db().collection('users').countDocuments()).toBe(3 + 9_998);
  // Never back: an import of lower ids leaves the counter where it is.
  const low = await service.graphql(IMPORT, { inputs: [{ id: '4', name: 'Low' }] }, ADMIN_HEADERS);
  expect(low.body.data.importUsers.imported).toBe(1);
  expect(await counterSeq()).toBe(30_000);

  const imported = new Set(results.filter((r) => r.user !== null).map((r) => r.user.id));
  const issued: string[] = [];
  for (const strategy of ID_STRATEGIES) {
    // 50 clients at once, 20 creations each: with more, requests on a loaded test machine wait
    // in line past the client's timeout rather than meet each other at the id strategies.
    const responses = (
      await Promise.all(
        Array.from({ length: 50 }, async (_, client) => {
          const answers = [];
          for (let i = 0; i < 20; i += 1) {
            const input = { name: `${strategy} ${client}.${i}` };
            answers.push(await service.graphql(CREATE_USER, { input, strategy }));
          }
          return answers;
        }),
      )
    ).flat();
    for (const response of responses) {
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data.createUser.error).toBeNull();
      const id = response.body.data.createUser.user.id as string;
      expect(Number(id)).toBeGreaterThan(30_000);
      expect(imported.has(id)).toBe(false);
      issued.push(id);
    }
    if (strategy === 'COUNTER' || strategy === 'TRANSACTION') {
      expect(await counterSeq()).toBe(await largestStored());
    }
  }
  expect(new Set(issued).size).toBe(issued.length);
  expect(await db().collection('users').countDocuments()).toBe(3 + 9_998 + 1 + issued.length);
}, 600_000);

test('importUsers is admin only; a bad item is refused alone', async () => {
  const refused = await service.graphql(
    IMPORT,
    { inputs: [{ id: '900000', name: 'X' }] },
    CLIENT_HEADERS,
  );
  expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  const mixed = await service.graphql(
    IMPORT,
    {
      inputs: [
        { id: '0', name: 'Zero' },
        { id: '900001', name: '' },
        { id: '900002', name: 'Fine' },
        { id: '900002', name: 'Twice' },
      ],
    },
    ADMIN_HEADERS,
  );
  expect(mixed.body.data.importUsers.results.map((r: { error: unknown }) => r.error)).toEqual([
    { code: 'BAD_USER_INPUT', field: 'id' },
    { code: 'BAD_USER_INPUT', field: 'name' },
    null,
    { code: 'BAD_USER_INPUT', field: 'id' },
  ]);
});

test('advanceSequence moves forward only, idempotently, a client its own sequences only', async () => {
  const define = await service.graphql(
    'mutation { createSequence(input: { name: "legacy-invoice", max: 100000 }) { error { code } } }',
    {},
    CLIENT_HEADERS,
  );
  expect(define.body.data.createSequence.error).toBeNull();
  const advance = async (to: number, headers = CLIENT_HEADERS, name = 'legacy-invoice') =>
    (await service.graphql(ADVANCE, { name, to }, headers)).body.data.advanceSequence;
  expect(await advance(5_000)).toEqual({ sequence: { value: 5_000, next: 5_001 }, error: null });
  expect(await advance(5_000)).toEqual({ sequence: { value: 5_000, next: 5_001 }, error: null });
  expect(await advance(10)).toEqual({ sequence: { value: 5_000, next: 5_001 }, error: null });
  expect((await advance(100_001)).error).toEqual({ code: 'BAD_USER_INPUT', field: 'to' });
  expect((await advance(1, CLIENT_HEADERS, 'no-such')).error?.code).toBe('SEQUENCE_NOT_FOUND');
  expect((await advance(1, CLIENT_HEADERS, 'userid')).error?.code).toBe('FORBIDDEN');
  const userid = await advance(50_000, ADMIN_HEADERS, 'userid');
  expect(userid.error).toBeNull();
  expect(userid.sequence.value).toBeGreaterThanOrEqual(50_000);
});
