/**
 * REQUEST_TIMEOUT_MS bounds a whole request, and a request answered 503 never executes afterwards
 * (issue 11, finding 8): the ledger of every 503 is checked against the database.
 *
 * - Slow bodies: half a body, silence past the deadline, then the rest. The client is answered 503
 *   (`retryable: true`) at the deadline, and the body that arrives later is never executed.
 * - Deadlines in the middle of a create: the counter's `$inc` (or the read before an optimistic or
 *   keyed insert) is held by a fail point past the deadline; the client is answered 503, and when
 *   the held command returns, no insert starts (the domain checks the request's AbortSignal before
 *   every write). Each case waits for the held command to finish, then looks in the database.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:net';
import type { CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { ID_STRATEGIES } from '../../src/strategies';
import { serviceOnFaultyDatabase } from './faulty-database';

const TIMEOUT_MS = 1_000;
/** How long a held command is held: well past the deadline. */
const HELD_MS = 2_000;

const CREATE_USER =
  'mutation($input: CreateUserInput!, $strategy: IdStrategy) { createUser(input: $input, strategy: $strategy) { user { id } } }';
const CREATE_USERS =
  'mutation($inputs: [CreateUserInput!]!, $strategy: IdStrategy) { createUsers(inputs: $inputs, strategy: $strategy) { created } }';

const faulty = serviceOnFaultyDatabase({ REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) });

const users = () => faulty.service.client.db(faulty.service.dbName).collection('users');

/** The stored users with any of these names. */
const storedNames = async (names: string[]) =>
  (
    await users()
      .find({ name: { $in: names } })
      .toArray()
  ).map((user) => user.name as string);

/** Sends a request whose body arrives in two halves, `pauseMs` apart; resolves with the raw answer. */
function slowPost(body: string, pauseMs: number): Promise<{ status: number; text: string }> {
  const { port } = new URL(faulty.service.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      resolve({ status, text: answer.slice(answer.indexOf('\r\n\r\n') + 4) });
    });
    const bytes = Buffer.from(body, 'utf8');
    const half = Math.floor(bytes.length / 2);
    socket.write(
      `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
        `content-length: ${bytes.length}\r\nconnection: close\r\n\r\n`,
    );
    socket.write(bytes.subarray(0, half));
    setTimeout(() => {
      socket.end(bytes.subarray(half));
    }, pauseMs);
  });
}

describe('slow bodies', () => {
  test('finding 8: half a body, silence past the deadline, then the rest: 503 retryable, nothing stored', async () => {
    const names = ID_STRATEGIES.map((strategy) => `slow ${strategy}`);
    const answers = await Promise.all(
      names.map((name, i) =>
        slowPost(
          JSON.stringify({
            query: CREATE_USER,
            variables: {
              input: { name, idempotencyKey: `slow-key-${i}` },
              strategy: ID_STRATEGIES[i],
            },
          }),
          TIMEOUT_MS * 1.5,
        ),
      ),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.text).errors[0].extensions).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        retryable: true,
        requestId: expect.any(String),
      });
    }
    // The rest of each body has arrived (the connection closed after it); give it time to run.
    await sleep(500);
    expect(await storedNames(names)).toEqual([]);
  });
});

/**
 * Holds `commands` past the deadline while `request` runs; resolves once the held command has
 * returned and anything that would follow it has had time to start.
 */
async function pastTheDeadline<T>(commands: string[], request: () => Promise<T>) {
  const inserts: string[] = [];
  let answeredAt = Infinity;
  const onStarted = (event: CommandStartedEvent) => {
    if (event.commandName === 'insert' && performance.now() > answeredAt) {
      inserts.push(JSON.stringify(event.command.documents));
    }
  };
  let release: () => void = () => {};
  const heldReturned = new Promise<void>((resolve) => {
    release = resolve;
  });
  const onSucceeded = (event: CommandSucceededEvent) => {
    if (commands.includes(event.commandName) && event.duration >= HELD_MS / 2) release();
  };
  faulty.service.client.on('commandStarted', onStarted);
  faulty.service.client.on('commandSucceeded', onSucceeded);
  try {
    return await faulty.database.whileFailing(
      commands,
      { blockTimeMS: HELD_MS },
      { times: 1 },
      async () => {
        const answer = await request();
        answeredAt = performance.now();
        await heldReturned;
        await sleep(300);
        return { answer, insertsAfterAnswer: inserts };
      },
    );
  } finally {
    faulty.service.client.off('commandStarted', onStarted);
    faulty.service.client.off('commandSucceeded', onSucceeded);
  }
}

describe('deadlines in the middle of a create: every answered-503 request is absent', () => {
  const cases = [
    ['COUNTER, the $inc held', ['findAndModify'], 'COUNTER', 'single'],
    ['BLOCK, the block refill held', ['findAndModify'], 'BLOCK', 'single'],
    ['OPTIMISTIC_LOOP, the max-id read held', ['find'], 'OPTIMISTIC_LOOP', 'single'],
    ['createUsers COUNTER, the $inc held', ['findAndModify'], 'COUNTER', 'batch'],
  ] as const;

  test.each(cases)('%s', async (name, commands, strategy, shape) => {
    const names = shape === 'single' ? [`held ${name}`] : [0, 1, 2].map((i) => `held ${name} ${i}`);
    const { answer, insertsAfterAnswer } = await pastTheDeadline([...commands], () =>
      shape === 'single'
        ? faulty.service.graphql(CREATE_USER, { input: { name: names[0] }, strategy })
        : faulty.service.graphql(CREATE_USERS, {
            inputs: names.map((n) => ({ name: n })),
            strategy,
          }),
    );
    expect(answer.status).toBe(503);
    expect(answer.body.errors?.[0]?.extensions).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      retryable: true,
      requestId: expect.any(String),
    });
    expect(insertsAfterAnswer).toEqual([]);
    expect(await storedNames(names)).toEqual([]);
  });

  test('after all of it, the service answers and creates normally', async () => {
    const response = await faulty.service.graphql(CREATE_USER, { input: { name: 'after' } });
    expect(response.body.errors).toBeUndefined();
    expect(await storedNames(['after'])).toEqual(['after']);
  });
});
