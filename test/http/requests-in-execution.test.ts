/**
 * Requests in execution, against the real HTTP server: at most `REQUESTS_IN_EXECUTION` `/graphql`
 * requests of one process run at once; the others wait their turn once their body has arrived and
 * run, all of them, as turns free up. A body still arriving takes no turn, so slow senders cannot
 * shut other callers out. A request whose deadline fires while it waits is answered
 * 503 SERVICE_UNAVAILABLE, retryable, and never runs.
 *
 * The users component's `createUser` is held open here (each call waits for the test's release),
 * so the calls in progress count the requests in execution; no figure of time is asserted.
 */
import { request, type ClientRequest } from 'node:http';
import { REQUESTS_IN_EXECUTION } from '../../src/limits';
import { startTestService, type TestService } from '../support/service';

const CREATE_USER = `
  mutation Create($input: CreateUserInput!) {
    createUser(input: $input, strategy: BLOCK) { user { id } error { code } }
  }`;
const WAITING = 20;
/** How often and how long the test looks for calls to arrive: a hang fails it instead. */
const POLL_MS = 20;
const POLLS = 1_500;
/** Looks this many more times after the bound was reached, for a call that should not come. */
const QUIET_POLLS = 15;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Holds every `createUser` of `service` until `release`; counts the calls in progress. */
function holdCreations(service: TestService) {
  const users = service.components.users;
  const original = users.createUser.bind(users);
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = { active: 0, most: 0, calls: 0, release };
  users.createUser = async (...args: Parameters<typeof users.createUser>) => {
    held.calls += 1;
    held.active += 1;
    held.most = Math.max(held.most, held.active);
    try {
      await released;
      return await original(...args);
    } finally {
      held.active -= 1;
    }
  };
  return held;
}

/** A service of its own for the tests of one `describe`, with `env` (budgets off). */
function serviceWith(env: Record<string, string>): () => TestService {
  let service: TestService | undefined;
  beforeAll(async () => {
    service = await startTestService({ env: { BUDGETS: 'off', ...env } });
  });
  afterAll(async () => {
    await service?.stop();
  });
  return () => {
    if (service === undefined) throw new Error('the service did not start');
    return service;
  };
}

async function until(condition: () => boolean): Promise<void> {
  for (let poll = 0; poll < POLLS && !condition(); poll += 1) await pause(POLL_MS);
  expect(condition()).toBe(true);
}

describe('at most REQUESTS_IN_EXECUTION requests run at once', () => {
  const serviceNow = serviceWith({ REQUEST_TIMEOUT_MS: '120000', DB_TIMEOUT_MS: '60000' });

  test('the requests past the bound wait, then every one runs and is answered', async () => {
    const service = serviceNow();
    const held = holdCreations(service);
    const total = REQUESTS_IN_EXECUTION + WAITING;
    const answers = Array.from({ length: total }, (_, i) =>
      service.graphql(CREATE_USER, { input: { name: `burst ${i}` } }),
    );
    await until(() => held.active === REQUESTS_IN_EXECUTION);
    for (let poll = 0; poll < QUIET_POLLS; poll += 1) await pause(POLL_MS);
    expect(held.calls).toBe(REQUESTS_IN_EXECUTION);
    held.release();
    const bodies = (await Promise.all(answers)).map((answer) => answer.body);
    expect(bodies.map((body) => body.errors ?? body.data.createUser.error)).toEqual(
      Array(total).fill(null),
    );
    expect(held.most).toBe(REQUESTS_IN_EXECUTION);
    expect(held.calls).toBe(total);
    expect(await service.client.db(service.dbName).collection('users').countDocuments()).toBe(
      total,
    );
  }, 180_000);
});

describe('a deadline that fires while a request waits its turn', () => {
  const serviceNow = serviceWith({ REQUEST_TIMEOUT_MS: '2000' });

  test('answers 503 SERVICE_UNAVAILABLE, retryable, and the request never runs', async () => {
    const service = serviceNow();
    const held = holdCreations(service);
    const running = Array.from({ length: REQUESTS_IN_EXECUTION }, (_, i) =>
      service.graphql(CREATE_USER, { input: { name: `running ${i}` } }),
    );
    await until(() => held.active === REQUESTS_IN_EXECUTION);
    const waiting = await service.graphql(CREATE_USER, { input: { name: 'waiting' } });
    expect(waiting.status).toBe(503);
    expect(waiting.body.errors?.[0].extensions).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      retryable: true,
    });
    held.release();
    await Promise.all(running);
    expect(held.calls).toBe(REQUESTS_IN_EXECUTION);
    expect(
      await service.client
        .db(service.dbName)
        .collection('users')
        .countDocuments({ name: 'waiting' }),
    ).toBe(0);
  }, 180_000);
});

describe('bodies still arriving', () => {
  const serviceNow = serviceWith({ REQUEST_TIMEOUT_MS: '120000' });

  test('take no turn: with as many open as the bound, another request is served', async () => {
    const service = serviceNow();
    const body = JSON.stringify({ query: CREATE_USER, variables: { input: { name: 'slow' } } });
    const slow: ClientRequest[] = [];
    try {
      for (let i = 0; i < REQUESTS_IN_EXECUTION; i += 1) {
        const sending = request(`${service.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        });
        sending.on('error', () => {}); // destroyed below, unanswered
        sending.write(body.slice(0, 10)); // the rest never comes
        slow.push(sending);
      }
      const served = await service.graphql(CREATE_USER, { input: { name: 'served' } });
      expect(served.status).toBe(200);
      expect(served.body.data.createUser).toEqual({ user: { id: '1' }, error: null });
    } finally {
      for (const sending of slow) sending.destroy();
    }
  }, 180_000);
});
