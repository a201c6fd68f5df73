/**
 * Tokens at start-up (src/config.ts with src/auth/tokens.ts): a token that could never match, or
 * could match differently from different clients, stops the process with a message naming the
 * variable or the client, and never printing the token.
 */
import { loadConfig } from '../../src/config';
import { refusalOf } from '../support/environment';

const GOOD = 'a'.repeat(16) + 'B'.repeat(16);
const OTHER = 'c'.repeat(20) + '-_.~!0123456';

describe('ADMIN_TOKEN', () => {
  test.each([
    ['a passphrase with spaces (finding 11)', 'correct horse battery staple'],
    ['32 characters with a space inside', `${'a'.repeat(16)} ${'b'.repeat(16)}`],
    ['a leading space', ` ${GOOD}`],
    ['non-ASCII letters (finding 11: Latin-1 and UTF-8 clients disagree)', `${GOOD}é`],
    ['a tab', `${GOOD}\t`],
    ['31 characters', GOOD.slice(1)],
  ])('refuses %s, naming ADMIN_TOKEN and not printing it', (_name, token) => {
    const message = refusalOf({ ADMIN_TOKEN: token });
    expect(message).toMatch(/ADMIN_TOKEN/);
    expect(message).not.toContain(token.trim());
  });

  test('accepts 32 visible ASCII characters, and unset or empty means no admin', () => {
    expect(loadConfig({ ADMIN_TOKEN: GOOD }).ADMIN_TOKEN).toBe(GOOD);
    expect(loadConfig({}).ADMIN_TOKEN).toBeUndefined();
    expect(loadConfig({ ADMIN_TOKEN: '' }).ADMIN_TOKEN).toBeUndefined();
  });
});

describe('CLIENT_TOKENS', () => {
  test('reads clientName:token pairs', () => {
    expect(
      loadConfig({ CLIENT_TOKENS: `billing:${GOOD}, imports:${OTHER}` }).CLIENT_TOKENS,
    ).toEqual([
      { client: 'billing', token: GOOD },
      { client: 'imports', token: OTHER },
    ]);
    expect(loadConfig({}).CLIENT_TOKENS).toEqual([]);
  });

  test.each([
    ['a short token', `billing:short`, /client billing.*at least 32/],
    ['a token with a space', `billing:${GOOD} x`, /client billing.*visible ASCII/],
    ['a non-ASCII token', `billing:${GOOD}ü`, /client billing.*visible ASCII/],
    ['an entry without a name', `:${GOOD}`, /entry 1 must be clientName:token/],
    ['an entry without a colon', GOOD, /entry 1 must be clientName:token/],
    ['a name that is not a sequence-like name', `1billing:${GOOD}`, /entry 1/],
    ['the reserved open-access name', `anonymous:${GOOD}`, /anonymous is reserved/],
    ['a client listed twice', `billing:${GOOD},billing:${OTHER}`, /client billing is listed twice/],
    [
      'two clients sharing a token',
      `billing:${GOOD},imports:${GOOD}`,
      /client imports.*another client/,
    ],
  ])('refuses %s', (_name, value, expected) => {
    const message = refusalOf({ CLIENT_TOKENS: value });
    expect(message).toMatch(/CLIENT_TOKENS/);
    expect(message).toMatch(expected);
    expect(message).not.toContain(GOOD);
  });

  test('refuses a client token that is also the admin token', () => {
    const message = refusalOf({ ADMIN_TOKEN: GOOD, CLIENT_TOKENS: `billing:${GOOD}` });
    expect(message).toMatch(/client billing is also ADMIN_TOKEN/);
    expect(message).not.toContain(GOOD);
  });
});
