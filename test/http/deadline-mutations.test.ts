/**
 * Every mutation, through the real HTTP server, meets its deadline in the middle of its database
 * work (issue 18: "a request whose work passes its deadline stops and answers 503"). One command of
 * it is held by a `failCommand` fail point (`blockConnection`) well past REQUEST_TIMEOUT_MS. The
 * client is answered 503 `SERVICE_UNAVAILABLE` with `retryable: true` at the deadline, and once the
 * held command has returned:
 * - no write of the request starts after the answer (the budget's contract, src/request-deadline.ts):
 *   not the next step, not a transaction's commit;
 * - the stored state is whole: when the held command was a read or a write inside a transaction,
 *   nothing of the request is stored (the transaction is rolled back, its counter `$inc` with it);
 *   when it was the request's one write, already sent, that write landed whole (what the 503 tells
 *   the client to retry with its idempotency key).
 * test/http/deadline.test.ts holds the slow bodies and createUser's non-transactional strategies.
 * A table of cases per mutation; a test fails when a mutation of the schema has no case.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { buildSchema } from 'graphql';
import type { CommandStartedEvent, CommandSucceededEvent, CommandFailedEvent } from 'mongodb';
import { loadTypeDefs } from '../../src/graphql/schema';
import { ADMIN_HEADERS } from '../support/service';
import { serviceOnFaultyDatabase } from './faulty-database';

const TIMEOUT_MS = 1_000;
/** How long the held command is held: well past the deadline. */
const HELD_MS = 2_500;
/** After the held command returned: time for a (wrong) next step to start. Not a synchronisation. */
const GRACE_MS = 300;

const WRITES = new Set([
  'insert',
  'update',
  'delete',
  'findAndModify',
  'commitTransaction',
  'createIndexes',
]);

const faulty = serviceOnFaultyDatabase({ REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) });

const db = () => faulty.service.client.db(faulty.service.dbName);

/** Every stored document of the service's database, collection by collection, as text. */
async function storedState(): Promise<Record<string, string[]>> {
  const state: Record<string, string[]> = {};
  for (const { name } of await db().listCollections({}, { nameOnly: true }).toArray()) {
    const documents = await db().collection(name).find().sort({ _id: 1 }).toArray();
    state[name] = documents.map((document) => JSON.stringify(document));
  }
  return state;
}

/** An admin request that must succeed (preparing a case); its data. */
async function prepared<T>(query: string, variables: object = {}): Promise<T> {
  const answer = await faulty.service.graphql<Record<string, T>>(query, variables, ADMIN_HEADERS);
  expect(answer.body.errors).toBeUndefined();
  const [payload] = Object.values(answer.body.data ?? {});
  expect((payload as { error?: unknown }).error ?? null).toBeNull();
  return payload;
}

const createSequence = (name: string, gapless = false) =>
  prepared(
    'mutation($input: CreateSequenceInput!) { createSequence(input: $input) { error { code } } }',
    {
      input: { name, ...(gapless ? { gapless: true } : {}) },
    },
  );

const createUser = (name: string) =>
  prepared<{ user: { id: string } }>(
    'mutation($input: CreateUserInput!) { createUser(input: $input) { user { id } error { code } } }',
    { input: { name } },
  ).then((payload) => payload.user.id);

const reserve = (sequence: string) =>
  prepared<{ reservation: { id: string } }>(
    'mutation($name: String!) { allocateSequence(name: $name) { reservation { id } error { code } } }',
    { name: sequence },
  ).then((payload) => payload.reservation.id);

const storedUser = (id: string) =>
  db()
    .collection('users')
    .findOne({ _id: Number(id) as never });
const storedCounter = (name: string) =>
  db()
    .collection<{ _id: string; seq?: unknown; formats?: unknown }>('counters')
    .findOne({ _id: name });
/** The issued values of a gapless sequence, lowest first. */
const storedValues = (name: string) =>
  db()
    .collection('gapless_values')
    .find({ sequence: name }, { sort: { value: 1 } })
    .toArray();

interface HeldCase {
  /** The mutation (a root field of `Mutation`). */
  field: string;
  /** What the case holds. */
  name: string;
  /** The command held past the deadline (its first occurrence). */
  held: string;
  /** Prepares the stored state; the request's variables. */
  prepare: () => Promise<object>;
  query: string;
  /**
   * After the held command returned: 'nothing' (the stored state is as before the request), or a
   * check of the one write that landed whole.
   */
  stored: 'nothing' | Check;
  /** For 'nothing': what must still be absent at the end of the file (a late write shows there). */
  stillAbsent?: Check;
}

type Check = (variables: Record<string, unknown>) => Promise<void>;

/** No user named as the request's inputs are. */
const noUserNamed: Check = async ({ input, inputs }) => {
  const names = ((inputs ?? [input]) as { name: string }[]).map((item) => item.name);
  expect(
    await db()
      .collection('users')
      .countDocuments({ name: { $in: names } }),
  ).toBe(0);
};

const CREATE_USER =
  'mutation($input: CreateUserInput!, $strategy: IdStrategy) { createUser(input: $input, strategy: $strategy) { user { id } error { code } } }';

const CASES: HeldCase[] = [
  {
    field: 'createUser',
    name: 'TRANSACTION, the counter $inc inside the transaction held',
    held: 'findAndModify',
    prepare: async () => ({ input: { name: 'txn inc held' }, strategy: 'TRANSACTION' }),
    query: CREATE_USER,
    stored: 'nothing',
    stillAbsent: noUserNamed,
  },
  {
    field: 'createUser',
    name: 'TRANSACTION, the insert inside the transaction held: no commit after the answer',
    held: 'insert',
    prepare: async () => ({
      input: { name: 'txn insert held', idempotencyKey: 'txn-insert-held' },
      strategy: 'TRANSACTION',
    }),
    query: CREATE_USER,
    stored: 'nothing',
    stillAbsent: noUserNamed,
  },
  {
    field: 'createUsers',
    name: 'TRANSACTION, the batch insert inside the transaction held: no commit after the answer',
    held: 'insert',
    prepare: async () => ({
      inputs: [{ name: 'txn batch 1' }, { name: 'txn batch 2' }],
      strategy: 'TRANSACTION',
    }),
    query:
      'mutation($inputs: [CreateUserInput!]!, $strategy: IdStrategy) { createUsers(inputs: $inputs, strategy: $strategy) { created error { code } } }',
    stored: 'nothing',
    stillAbsent: noUserNamed,
  },
  {
    field: 'updateUser',
    name: 'its one write held',
    held: 'findAndModify',
    prepare: async () => ({ id: await createUser('before update'), input: { name: 'updated' } }),
    query:
      'mutation($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { user { id } error { code } } }',
    stored: async ({ id }) => {
      expect(await storedUser(id as string)).toMatchObject({ name: 'updated' });
    },
  },
  {
    field: 'deleteUser',
    name: 'its one write held',
    held: 'findAndModify',
    prepare: async () => ({ id: await createUser('to delete') }),
    query: 'mutation($id: ID!) { deleteUser(id: $id) { deletedUserId error { code } } }',
    stored: async ({ id }) => {
      expect(await storedUser(id as string)).toBeNull();
    },
  },
  {
    field: 'createSequence',
    name: 'its one write held',
    held: 'insert',
    prepare: async () => ({ input: { name: 'held-create' } }),
    query:
      'mutation($input: CreateSequenceInput!) { createSequence(input: $input) { sequence { name } error { code } } }',
    stored: async () => {
      expect(await storedCounter('held-create')).toMatchObject({ name: 'held-create' });
    },
  },
  {
    field: 'allocateSequence',
    name: 'its one write held',
    held: 'findAndModify',
    prepare: async () => {
      await createSequence('held-allocate');
      return { name: 'held-allocate', count: 3 };
    },
    query:
      'mutation($name: String!, $count: Int) { allocateSequence(name: $name, count: $count) { range { first } error { code } } }',
    stored: async () => {
      // The three values were issued whole (a gap the 503 leaves, as any unused allocation).
      expect(Number((await storedCounter('held-allocate'))?.seq)).toBe(3);
    },
  },
  {
    field: 'confirmReservation',
    name: 'its one write held',
    held: 'update',
    prepare: async () => {
      await createSequence('held-confirm', true);
      return { id: await reserve('held-confirm') };
    },
    query: 'mutation($id: ID!) { confirmReservation(id: $id) { value error { code } } }',
    stored: async () => {
      const [value] = await storedValues('held-confirm');
      // Confirmed, keeping the token that confirmed it (a retry answers it confirmed).
      expect(value).toMatchObject({
        value: 1,
        confirmedAt: expect.any(Date),
        token: expect.any(String),
      });
      expect(value).not.toHaveProperty('expiresAt');
    },
  },
  {
    field: 'confirmReservations',
    name: 'its one write of them all held',
    held: 'update',
    prepare: async () => {
      await createSequence('held-confirm-many', true);
      return { ids: [await reserve('held-confirm-many'), await reserve('held-confirm-many')] };
    },
    query: 'mutation($ids: [ID!]!) { confirmReservations(ids: $ids) { settled error { code } } }',
    stored: async () => {
      const values = await storedValues('held-confirm-many');
      expect(values).toMatchObject([
        { value: 1, confirmedAt: expect.any(Date) },
        { value: 2, confirmedAt: expect.any(Date) },
      ]);
    },
  },
  {
    field: 'releaseReservation',
    name: 'its value write held: the counter is not told after the answer',
    held: 'update',
    prepare: async () => {
      await createSequence('held-release', true);
      return { id: await reserve('held-release') };
    },
    query: 'mutation($id: ID!) { releaseReservation(id: $id) { value error { code } } }',
    stored: async () => {
      // Released, and handed out again at the latest when its hold would have ended: the
      // counter's `freeCheckAt` is that expiry, since the answer came before it was lowered.
      const [value] = await storedValues('held-release');
      expect(value).toMatchObject({ value: 1, token: expect.any(String), expiresAt: new Date(0) });
      const counter = await storedCounter('held-release');
      expect(counter).not.toHaveProperty('releases');
      expect(Number(counter?.seq)).toBe(1);
    },
  },
  {
    field: 'releaseReservations',
    name: 'its value write held: the counter is not told after the answer',
    held: 'update',
    prepare: async () => {
      await createSequence('held-release-many', true);
      return { ids: [await reserve('held-release-many'), await reserve('held-release-many')] };
    },
    query: 'mutation($ids: [ID!]!) { releaseReservations(ids: $ids) { settled error { code } } }',
    stored: async () => {
      const values = await storedValues('held-release-many');
      expect(values).toMatchObject([
        { value: 1, expiresAt: new Date(0) },
        { value: 2, expiresAt: new Date(0) },
      ]);
      const counter = await storedCounter('held-release-many');
      expect(counter).not.toHaveProperty('releases');
      expect(Number(counter?.seq)).toBe(2);
    },
  },
  {
    field: 'setSequence',
    name: 'the read before its write held: the write never starts',
    held: 'find',
    prepare: async () => {
      await createSequence('held-set');
      return { name: 'held-set', value: 100 };
    },
    query:
      'mutation($name: String!, $value: Long!) { setSequence(name: $name, value: $value) { sequence { value } error { code } } }',
    stored: 'nothing',
    stillAbsent: async () => {
      expect(Number((await storedCounter('held-set'))?.seq)).toBe(0);
    },
  },
  {
    field: 'advanceSequence',
    name: 'the read before its write held: the write never starts',
    held: 'find',
    prepare: async () => {
      await createSequence('held-advance');
      return { name: 'held-advance', to: 500 };
    },
    query:
      'mutation($name: String!, $to: Long!) { advanceSequence(name: $name, to: $to) { sequence { value } error { code } } }',
    stored: 'nothing',
    stillAbsent: async () => {
      expect(Number((await storedCounter('held-advance'))?.seq)).toBe(0);
    },
  },
  {
    field: 'setSequenceFormat',
    name: 'a read before its write held: the write never starts',
    held: 'find',
    prepare: async () => ({ format: 'H-{seq:9}' }),
    query:
      'mutation($format: String!) { setSequenceFormat(name: "userid", format: $format) { sequence { format } error { code } } }',
    stored: 'nothing',
    stillAbsent: async () => {
      expect((await storedCounter('userid'))?.formats).toBeUndefined();
    },
  },
  {
    field: 'importUsers',
    name: 'its users insert held: the insert lands whole',
    held: 'insert',
    prepare: async () => ({ inputs: [{ id: '900001', name: 'held import' }] }),
    query:
      'mutation($inputs: [ImportUserInput!]!) { importUsers(inputs: $inputs) { results { user { id } error { code } } } }',
    stored: async () => {
      expect(await storedUser('900001')).toMatchObject({ name: 'held import' });
      expect(Number((await storedCounter('userid'))?.seq)).toBeGreaterThanOrEqual(900001);
    },
  },
];

/**
 * Sends `query` with `command` held past the deadline. Resolves with the answer, the writes that
 * started after it, and the stored state before the request; once the held command has returned
 * (when it was sent at all) and a next step has had GRACE_MS to start.
 */
async function pastTheDeadline(command: string, query: string, variables: object) {
  const writesAfterAnswer: string[] = [];
  let answered = false;
  let heldStarted = false;
  let heldRequestId: number | undefined;
  let release: () => void = () => {};
  const heldReturned = new Promise<void>((resolve) => {
    release = resolve;
  });
  const onStarted = (event: CommandStartedEvent) => {
    if (answered && WRITES.has(event.commandName)) writesAfterAnswer.push(event.commandName);
    if (!heldStarted && event.commandName === command) {
      heldStarted = true;
      heldRequestId = event.requestId;
    }
  };
  const onEnded = (event: CommandSucceededEvent | CommandFailedEvent) => {
    if (event.requestId === heldRequestId) release();
  };
  const before = await storedState();
  faulty.service.client.on('commandStarted', onStarted);
  faulty.service.client.on('commandSucceeded', onEnded);
  faulty.service.client.on('commandFailed', onEnded);
  try {
    return await faulty.database.whileFailing(
      [command],
      { blockTimeMS: HELD_MS },
      { times: 1 },
      async () => {
        const answer = await faulty.service.graphql(query, variables, ADMIN_HEADERS);
        answered = true;
        if (heldStarted) await heldReturned;
        await sleep(GRACE_MS);
        return { answer, writesAfterAnswer, before, heldStarted };
      },
    );
  } finally {
    faulty.service.client.off('commandStarted', onStarted);
    faulty.service.client.off('commandSucceeded', onEnded);
    faulty.service.client.off('commandFailed', onEnded);
  }
}

/** The checks of every case, run again at the end: a late write would show there. */
const finalChecks: (() => Promise<void>)[] = [];

test('every mutation of the schema has a case', () => {
  const mutations = Object.keys(buildSchema(loadTypeDefs()).getMutationType()?.getFields() ?? {});
  expect(mutations.filter((field) => !CASES.some((c) => c.field === field))).toEqual([]);
});

describe.each(CASES.map((c) => [`${c.field}: ${c.name}`, c] as const))('%s', (_label, c) => {
  test('answers 503 retryable at the deadline; nothing is left half-done', async () => {
    const variables = (await c.prepare()) as Record<string, unknown>;
    const { answer, writesAfterAnswer, before, heldStarted } = await pastTheDeadline(
      c.held,
      c.query,
      variables,
    );
    expect(answer.status).toBe(503);
    expect(answer.body.errors?.[0]?.extensions).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      retryable: true,
      requestId: expect.any(String),
    });
    expect(heldStarted).toBe(true);
    expect(writesAfterAnswer).toEqual([]);
    if (c.stored === 'nothing') {
      expect(await storedState()).toEqual(before);
      const absent = c.stillAbsent;
      if (absent !== undefined) finalChecks.push(() => absent(variables));
    } else {
      const check = c.stored;
      await check(variables);
      finalChecks.push(() => check(variables));
    }
  });
});

test('a read held past the deadline answers 503 retryable too', async () => {
  const { answer } = await pastTheDeadline(
    'find',
    '{ users(first: 5) { edges { node { id } } } }',
    {},
  );
  expect(answer.status).toBe(503);
  expect(answer.body.errors?.[0]?.extensions).toEqual({
    code: 'SERVICE_UNAVAILABLE',
    retryable: true,
    requestId: expect.any(String),
  });
});

test('after all of it: every landed write is still whole, nothing else landed late, and the service creates normally', async () => {
  for (const check of finalChecks) await check();
  const id = await createUser('after the deadlines');
  expect(await storedUser(id)).toMatchObject({ name: 'after the deadlines' });
});
