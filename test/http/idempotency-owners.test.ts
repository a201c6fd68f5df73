/**
 * Idempotency keys belong to their caller (issue 18, src/users/key-owners.ts), through the real HTTP
 * server in production mode: a key replays only for the caller who stored it; another caller's key
 * is a fresh key, and nothing about it (existence, id, input) leaks, path by path (replay, key
 * reuse, createUsers); EMAIL_TAKEN and INVITER_NOT_FOUND stay as documented; a key stored by 0.3
 * (no owner) is replayed to no caller of the API.
 *
 * In 0.3 the `billing` client created a user with `shared-key-1`; a caller without a token sending
 * the same key and input got `replayed: true` with that user's id, name and email, and other input
 * answered IDEMPOTENCY_KEY_REUSED, which confirmed the key.
 */
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../support/service';

const BILLING = { client: 'billing', token: 'billing-client-token-0123456789abcdef' };
const SHOP = { client: 'shop', token: 'shop-client-token-0123456789abcdefghij' };
const as = (token?: string): Record<string, string> =>
  token === undefined ? {} : { authorization: `Bearer ${token}` };

const CREATE_USER = `mutation($input: CreateUserInput!) {
  createUser(input: $input) { user { id name email } replayed error { code field } }
}`;
const CREATE_USERS = `mutation($inputs: [CreateUserInput!]!) {
  createUsers(inputs: $inputs) { results { user { id name } replayed error { code } } }
}`;

interface Created {
  user: { id: string; name: string; email: string | null } | null;
  replayed: boolean | null;
  error: { code: string; field: string | null } | null;
}

let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    env: {
      NODE_ENV: 'production',
      CLIENT_TOKENS: [BILLING, SHOP].map(({ client, token }) => `${client}:${token}`).join(','),
    },
  });
});

afterAll(async () => {
  await service.stop();
});

async function createUser(input: object, token?: string): Promise<Created> {
  const answer = await service.graphql<{ createUser: Created }>(CREATE_USER, { input }, as(token));
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data!.createUser;
}

const users = () => service.client.db(service.dbName).collection('users');

describe('replay', () => {
  test('replays for the client that stored the key; a caller without a token gets a user of its own', async () => {
    const input = { name: 'Billing Customer', idempotencyKey: 'shared-key-1' };
    const first = await createUser(input, BILLING.token);
    expect(first).toMatchObject({ replayed: false, error: null });
    const again = await createUser(input, BILLING.token);
    expect(again).toMatchObject({ replayed: true, user: { id: first.user!.id } });

    const anonymous = await createUser(input);
    expect(anonymous).toMatchObject({ replayed: false, error: null });
    expect(anonymous.user!.id).not.toBe(first.user!.id);
    const otherClient = await createUser(input, SHOP.token);
    expect(otherClient).toMatchObject({ replayed: false, error: null });
    expect([first.user!.id, anonymous.user!.id]).not.toContain(otherClient.user!.id);
    // The admin is a caller of its own too.
    const admin = await createUser(input, TEST_ADMIN_TOKEN);
    expect(admin).toMatchObject({ replayed: false, error: null });
    expect(await users().countDocuments({ name: 'Billing Customer' })).toBe(4);
  });

  test('a caller without a token replays its own sign-up (same key, same input)', async () => {
    const input = { name: 'Anonymous Signup', idempotencyKey: 'signup-7f3c2a' };
    const first = await createUser(input);
    const retry = await createUser(input);
    expect(retry).toMatchObject({ replayed: true, user: { id: first.user!.id } });
  });
});

describe('key reuse', () => {
  test("another caller's key with other input is a fresh key, never IDEMPOTENCY_KEY_REUSED", async () => {
    await createUser({ name: 'Original', idempotencyKey: 'reuse-key' }, BILLING.token);
    const anonymous = await createUser({ name: 'Someone else', idempotencyKey: 'reuse-key' });
    expect(anonymous).toMatchObject({
      replayed: false,
      error: null,
      user: { name: 'Someone else' },
    });
    const shop = await createUser({ name: 'Shop user', idempotencyKey: 'reuse-key' }, SHOP.token);
    expect(shop).toMatchObject({ replayed: false, error: null, user: { name: 'Shop user' } });
  });

  test('the owner still hears IDEMPOTENCY_KEY_REUSED for its own key with other input', async () => {
    await createUser({ name: 'First', idempotencyKey: 'own-key' }, BILLING.token);
    const reused = await createUser({ name: 'Second', idempotencyKey: 'own-key' }, BILLING.token);
    expect(reused).toMatchObject({
      user: null,
      error: { code: 'IDEMPOTENCY_KEY_REUSED', field: 'idempotencyKey' },
    });
  });

  test('without a token, the same key with other input is a fresh key: it confirms nothing', async () => {
    await createUser({ name: 'Anon one', idempotencyKey: 'anon-key' });
    const other = await createUser({ name: 'Anon two', idempotencyKey: 'anon-key' });
    expect(other).toMatchObject({ replayed: false, error: null, user: { name: 'Anon two' } });
  });

  test("createUsers treats another caller's keys as fresh keys too", async () => {
    await createUser({ name: 'Batch original', idempotencyKey: 'batch-key' }, BILLING.token);
    const answer = await service.graphql(
      CREATE_USERS,
      { inputs: [{ name: 'Batch original', idempotencyKey: 'batch-key' }] },
      as(SHOP.token),
    );
    expect(answer.body.data.createUsers.results).toEqual([
      { user: { id: expect.any(String), name: 'Batch original' }, replayed: false, error: null },
    ]);
    expect(await users().countDocuments({ name: 'Batch original' })).toBe(2);
  });
});

describe('EMAIL_TAKEN and INVITER_NOT_FOUND stay as documented', () => {
  test("another caller's key with the same email answers EMAIL_TAKEN, not the user", async () => {
    const input = { name: 'Mail owner', email: 'owner@example.test', idempotencyKey: 'mail-key' };
    await createUser(input, BILLING.token);
    const anonymous = await createUser(input);
    expect(anonymous).toMatchObject({
      user: null,
      replayed: null,
      error: { code: 'EMAIL_TAKEN', field: 'email' },
    });
  });

  test('an unknown inviter answers INVITER_NOT_FOUND, with or without a key', async () => {
    for (const idempotencyKey of [undefined, 'inviter-key']) {
      const answer = await createUser({ name: 'Invited', invitedById: '999999', idempotencyKey });
      expect(answer).toMatchObject({ error: { code: 'INVITER_NOT_FOUND', field: 'invitedById' } });
    }
  });
});

test('a key stored by 0.3 (without an owner) replays to no caller of the API', async () => {
  const { id } = (await createUser({ name: 'Before the upgrade' }, BILLING.token)).user!;
  // What 0.3 stored: the key as sent, with the input's fingerprint.
  const stored = await users().findOne({ name: 'Before the upgrade' });
  await users().updateOne(
    { _id: stored!._id },
    { $set: { idempotencyKey: 'legacy-key', inputHash: 'whatever-0.3-stored' } },
  );
  const billing = await createUser(
    { name: 'Before the upgrade', idempotencyKey: 'legacy-key' },
    BILLING.token,
  );
  expect(billing).toMatchObject({ replayed: false, error: null });
  expect(billing.user!.id).not.toBe(id);
  expect(await users().countDocuments({ idempotencyKey: { $regex: '^legacy-key' } })).toBe(2);
});

test('the stored key names its owner after the key', async () => {
  await createUser({ name: 'Stored form', idempotencyKey: 'form-key' }, BILLING.token);
  const doc = await users().findOne({ name: 'Stored form' });
  expect(doc?.idempotencyKey).toBe('form-key\u001fclient:billing');
});
