/**
 * The service's one request listener (src/graphql/request-bounds.ts) runs graphql-armor's plugins
 * only when a request has errors. That loses nothing only while armor's plugins have no other
 * request hook: checked here on the plugins themselves, and over HTTP, where production masks a
 * field suggestion with armor's words and development shows it.
 */
import { documentProtection } from '../../src/graphql/server';
import { CLIENT_HEADERS, startTestService, type TestService } from '../support/service';

test.each(['production', 'development', 'test'] as const)(
  "armor's plugins in %s only ever mend errors",
  async (NODE_ENV) => {
    for (const plugin of documentProtection({ NODE_ENV }).plugins) {
      expect(Object.keys(plugin)).toEqual(['requestDidStart']);
      const listener = await plugin.requestDidStart?.({} as never);
      expect(Object.keys(listener ?? {})).toEqual(['didEncounterErrors']);
    }
  },
);

describe('a field suggestion over HTTP', () => {
  let production: TestService;
  let development: TestService;

  beforeAll(async () => {
    [production, development] = await Promise.all([
      startTestService({ env: { NODE_ENV: 'production' } }),
      startTestService({ env: { NODE_ENV: 'development' } }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([production.stop(), development.stop()]);
  });

  const typo = (service: TestService) =>
    service.graphql('{ userz(id: "1") { id } }', undefined, CLIENT_HEADERS);

  test('is masked with armor’s words in production, in the same request as the bounds', async () => {
    const { status, body } = await typo(production);
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toContain('[Suggestion hidden]');
    expect(JSON.stringify(body)).not.toMatch(/did you mean/i);
  });

  test('is shown outside production', async () => {
    const { body } = await typo(development);
    expect(body.errors?.[0]?.message).toMatch(/Did you mean "user/);
  });

  test('a request without errors still carries its cost, planned once', async () => {
    const { status, body } = await production.graphql(
      'mutation { createUser(input: { name: "Planned" }) { user { id } } }',
      undefined,
      CLIENT_HEADERS,
    );
    expect(status).toBe(200);
    expect((body as { extensions?: unknown }).extensions).toEqual({
      cost: { usersCreated: 1, sequenceAllocations: 0, listedItems: 0, scannedValues: 0 },
    });
  });
});
