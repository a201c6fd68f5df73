/**
 * Customer numbers beside user ids, and the next value as people write it, through the real HTTP
 * server and driver:
 * - admin gives `userid` a format (`setSequenceFormat`); it covers the ids from the first one
 *   nobody holds yet, so users created before keep a null `number`, and a later format never
 *   changes a number already answered; a padding that cannot hold the next id is refused, and
 *   ids past a format's padding answer null, never a truncated or wider number;
 * - every strategy's users, created at once, answer the number of their id, and read it back the
 *   same; so does an imported user; BLOCK's ids held before a change keep the format that covered
 *   them;
 * - only admin sets it, only on `userid`; `formattedNext` on sequences and the `sequences` list.
 */
import { ID_STRATEGIES } from '../../src/strategies';
import {
  ADMIN_HEADERS,
  CLIENT_HEADERS,
  startPatientService,
  type TestService,
} from '../support/service';

const ERROR = 'error { code field message }';
const SET_FORMAT = `mutation ($format: String!, $name: String! = "userid") {
  setSequenceFormat(name: $name, format: $format) {
    sequence { format value next formattedValue formattedNext } ${ERROR}
  }
}`;
const CREATE_USER = `mutation ($input: CreateUserInput!, $strategy: IdStrategy) {
  createUser(input: $input, strategy: $strategy) { user { id number } error { code } }
}`;
const READ_USERS = `query ($ids: [ID!]!) { nodes(ids: $ids) { ... on User { id number } } }`;
const ADVANCE = `mutation ($to: Long!) {
  advanceSequence(name: "userid", to: $to) { sequence { value } ${ERROR} }
}`;

let service: TestService;
let created = 0;

beforeAll(async () => {
  service = await startPatientService();
});

afterAll(async () => {
  await service?.stop();
});

async function setFormat(format: string, headers = ADMIN_HEADERS, name = 'userid') {
  const answer = await service.graphql(SET_FORMAT, { format, name }, headers);
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data.setSequenceFormat;
}

async function createUser(strategy = 'COUNTER'): Promise<{ id: string; number: string | null }> {
  created += 1;
  const answer = await service.graphql(
    CREATE_USER,
    { input: { name: `Customer ${created}` }, strategy },
    CLIENT_HEADERS,
  );
  expect(answer.body.errors).toBeUndefined();
  expect(answer.body.data.createUser.error).toBeNull();
  return answer.body.data.createUser.user;
}

async function numbersOf(ids: string[]): Promise<Map<string, string | null>> {
  const answer = await service.graphql(READ_USERS, { ids }, CLIENT_HEADERS);
  expect(answer.body.errors).toBeUndefined();
  return new Map(
    answer.body.data.nodes.map((user: { id: string; number: string | null }) => [
      user.id,
      user.number,
    ]),
  );
}

const padded = (prefix: string, id: string, width: number) => `${prefix}${id.padStart(width, '0')}`;

test('formats cover the ids from the first nobody holds; numbers never change once answered', async () => {
  const before = [await createUser(), await createUser(), await createUser()];
  expect(before.map((user) => user.number)).toEqual([null, null, null]);

  // A client may not; a date part has no period to come from.
  const byClient = await service.graphql(SET_FORMAT, { format: 'C-{seq:2}' }, CLIENT_HEADERS);
  expect(byClient.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  expect((await setFormat('C-{YYYY}-{seq:2}')).error).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'format',
  });

  const two = await setFormat('C-{seq:2}');
  expect(two.error).toBeNull();
  expect(two.sequence).toMatchObject({ format: 'C-{seq:2}', value: 3, formattedValue: null });
  expect(two.sequence.formattedNext).toBe('C-04');
  // The same format again adds nothing.
  expect((await setFormat('C-{seq:2}')).sequence).toEqual(two.sequence);

  const fourth = await createUser();
  expect(fourth).toEqual({ id: '4', number: 'C-04' });

  // Ids past the padding answer null: never `C-100`, never `C-00`.
  const advanced = await service.graphql(ADVANCE, { to: 98 }, ADMIN_HEADERS);
  expect(advanced.body.data.advanceSequence.error).toBeNull();
  const ninetyNine = await createUser();
  const hundred = await createUser();
  expect(ninetyNine).toEqual({ id: '99', number: 'C-99' });
  expect(hundred).toEqual({ id: '100', number: null });

  // A padding that cannot hold the next id is refused, and nothing changes.
  const narrow = await setFormat('X-{seq:2}');
  expect(narrow.error).toMatchObject({ code: 'BAD_USER_INPUT', field: 'format' });
  expect(narrow.error.message).toContain('101');

  const six = await setFormat('C-{seq:6}');
  expect(six.sequence).toMatchObject({
    format: 'C-{seq:6}',
    value: 100,
    formattedValue: null,
    formattedNext: 'C-000101',
  });
  const after = await createUser();
  expect(after).toEqual({ id: '101', number: 'C-000101' });

  const read = await numbersOf(['1', '3', '4', '99', '100', '101']);
  expect(Object.fromEntries(read)).toEqual({
    '1': null,
    '3': null,
    '4': 'C-04',
    '99': 'C-99',
    '100': null,
    '101': 'C-000101',
  });
});

test('every strategy, at once, answers the number of its id, and reads it back the same', async () => {
  const users = await Promise.all(
    ID_STRATEGIES.flatMap((strategy) => Array.from({ length: 10 }, () => createUser(strategy))),
  );
  expect(new Set(users.map((user) => user.id)).size).toBe(users.length);
  for (const user of users) expect(user.number).toBe(padded('C-', user.id, 6));
  const read = await numbersOf(users.map((user) => user.id));
  for (const user of users) expect(read.get(user.id)).toBe(user.number);
});

test('a BLOCK id held before a new format keeps the format that covered it', async () => {
  const held = await createUser('BLOCK'); // takes a block: later BLOCK ids are below the counter
  const counted = await setFormat('N-{seq:7}');
  expect(counted.error).toBeNull();
  const fromBlock = await createUser('BLOCK');
  expect(Number(fromBlock.id)).toBeLessThan(Number(counted.sequence.formattedNext.slice(2)));
  expect(fromBlock.number).toBe(padded('C-', fromBlock.id, 6));
  const fromCounter = await createUser('COUNTER');
  expect(fromCounter.number).toBe(padded('N-', fromCounter.id, 7));
  const read = await numbersOf([held.id, fromBlock.id, fromCounter.id]);
  expect(read.get(held.id)).toBe(padded('C-', held.id, 6));
  expect(read.get(fromBlock.id)).toBe(fromBlock.number);
  expect(read.get(fromCounter.id)).toBe(fromCounter.number);
});

test('an imported user answers the number of the id it brought', async () => {
  const answer = await service.graphql(
    `mutation ($inputs: [ImportUserInput!]!) {
      importUsers(inputs: $inputs) { results { user { id number } error { code } } }
    }`,
    { inputs: [{ id: '500000', name: 'Imported customer' }] },
    ADMIN_HEADERS,
  );
  expect(answer.body.errors).toBeUndefined();
  expect(answer.body.data.importUsers.results[0]).toEqual({
    user: { id: '500000', number: 'N-0500000' },
    error: null,
  });
});

test('a format is set only on userid; other sequences take theirs at createSequence', async () => {
  const defined = await service.graphql(
    `mutation { createSequence(input: { name: "ticket", format: "T-{seq:4}" }) {
      sequence { formattedValue formattedNext } ${ERROR} } }`,
    {},
    CLIENT_HEADERS,
  );
  expect(defined.body.data.createSequence).toEqual({
    sequence: { formattedValue: null, formattedNext: 'T-0001' },
    error: null,
  });
  const allocated = await service.graphql(
    `mutation { allocateSequence(name: "ticket") {
      range { formatted } sequence { formattedValue formattedNext } } }`,
    {},
    CLIENT_HEADERS,
  );
  expect(allocated.body.data.allocateSequence).toEqual({
    range: { formatted: ['T-0001'] },
    sequence: { formattedValue: 'T-0001', formattedNext: 'T-0002' },
  });
  const listed = await service.graphql(
    `{ sequences { edges { node { id formattedNext } } } }`,
    {},
    CLIENT_HEADERS,
  );
  expect(listed.body.data.sequences.edges.map((edge: { node: unknown }) => edge.node)).toEqual(
    expect.arrayContaining([{ id: 'ticket', formattedNext: 'T-0002' }]),
  );

  const admin = 'testclient~ticket';
  expect((await setFormat('T-{seq:5}', ADMIN_HEADERS, admin)).error).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'name',
  });
  expect((await setFormat('T-{seq:5}', ADMIN_HEADERS, 'nothing-here')).error).toMatchObject({
    code: 'SEQUENCE_NOT_FOUND',
  });
});
