/**
 * The caller a bearer token proves (src/auth/callers.ts): each configured token proves its own
 * client (or the admin), and any other token, whatever its length, proves no one. The digests the
 * comparison runs on are of one length for every token, so `timingSafeEqual` never refuses to
 * compare (it throws on unequal lengths) and a near miss is told apart from the token.
 */
import { createAuthenticator } from '../../src/auth/callers';

const BILLING = 'billing-token-0123456789abcdefghijklmnop';
const SHIPPING = 'shipping-token-0123456789abcdefghijklmno';
const ADMIN = 'admin-token-0123456789abcdefghijklmnopqr';

const authenticate = createAuthenticator({
  NODE_ENV: 'production',
  ADMIN_TOKEN: ADMIN,
  CLIENT_TOKENS: [
    { client: 'billing', token: BILLING },
    { client: 'shipping', token: SHIPPING },
  ],
});

describe('createAuthenticator', () => {
  it('proves each configured token its own caller', () => {
    expect(authenticate(`Bearer ${BILLING}`)).toEqual({ role: 'client', client: 'billing' });
    expect(authenticate(`Bearer ${SHIPPING}`)).toEqual({ role: 'client', client: 'shipping' });
    expect(authenticate(`Bearer ${ADMIN}`)).toEqual({ role: 'admin' });
  });

  it.each([
    ['the last character changed', `${BILLING.slice(0, -1)}q`],
    ['the first character changed', `c${BILLING.slice(1)}`],
    ['one character short', BILLING.slice(0, -1)],
    ['one character more', `${BILLING}a`],
    ['the token twice', BILLING.repeat(2)],
    ['one character', 'b'],
    ['10,000 characters', 'x'.repeat(10_000)],
    ['the client name', 'billing'],
  ])('proves no one with a token of %s', (_name, token) => {
    expect(authenticate(`Bearer ${token}`)).toBeNull();
  });
});
