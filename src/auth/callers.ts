/**
 * Who is calling: the role a request's `Authorization: Bearer <token>` header earns.
 *
 * Invariants: a token is compared with every configured token in constant time (SHA-256 digests of
 * equal length through `timingSafeEqual`, and no early exit), so neither a token's content, its
 * length nor which client holds it leaks through timing. Only a request without an `Authorization`
 * header (or with an empty one) is anonymous; a header that is there but is another scheme, a
 * malformed value or an unknown token proves no one (null), in every mode, so the HTTP layer refuses
 * it as UNAUTHENTICATED: a typo in a token is told, never quietly served as another caller. Which
 * of those it was is not told (one answer for all). Outside production an anonymous caller acts as
 * the client named `OPEN_ACCESS_CLIENT` (open defaults for exploration, announced at start-up by
 * `openAccessWarning`); in production it stays anonymous.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { OPEN_ACCESS_CLIENT, type ClientToken } from './tokens';

export type Role = 'anonymous' | 'client' | 'admin';

export type Caller = { role: 'anonymous' } | { role: 'client'; client: string } | { role: 'admin' };

/** A caller whose token was valid: what the sequences component knows callers as. */
export type TokenHolder = Exclude<Caller, { role: 'anonymous' }>;

export interface AuthConfig {
  NODE_ENV: 'development' | 'production' | 'test';
  ADMIN_TOKEN?: string;
  CLIENT_TOKENS: ClientToken[];
}

/** HTTP's authentication scheme is case-insensitive and followed by one or more spaces (RFC 9110 11.1). */
const BEARER = /^Bearer +([\x21-\x7e]+)$/i;

/** Tokens are visible ASCII (checked at start-up, and by BEARER), so UTF-8 is their bytes. */
const digest = (text: string) => hash('sha256', text, 'buffer');

/**
 * Turns an `Authorization` header into the caller it proves, or null when it is present but proves
 * no one; built once per process.
 */
export function createAuthenticator(config: AuthConfig): (authorization?: string) => Caller | null {
  const known: Array<{ digest: Buffer; caller: Caller }> = [
    ...(config.ADMIN_TOKEN === undefined
      ? []
      : [{ digest: digest(config.ADMIN_TOKEN), caller: { role: 'admin' } as const }]),
    ...config.CLIENT_TOKENS.map(({ client, token }) => ({
      digest: digest(token),
      caller: { role: 'client', client } as const,
    })),
  ];
  const anonymous: Caller =
    config.NODE_ENV === 'production'
      ? { role: 'anonymous' }
      : { role: 'client', client: OPEN_ACCESS_CLIENT };
  return (authorization) => {
    if (authorization === undefined || authorization.trim() === '') return anonymous;
    const presented = BEARER.exec(authorization)?.[1];
    if (presented === undefined) return null;
    const candidate = digest(presented);
    let match: Caller | undefined;
    for (const entry of known) {
      // Every entry is compared, matched or not, so the time spent says nothing about which.
      if (timingSafeEqual(candidate, entry.digest)) match ??= entry.caller;
    }
    return match ?? null;
  };
}

/** The start-up warning when requests without a token get more than production allows, else null. */
export function openAccessWarning(config: Pick<AuthConfig, 'NODE_ENV'>): string | null {
  if (config.NODE_ENV === 'production') return null;
  return (
    `OPEN ACCESS (NODE_ENV=${config.NODE_ENV}): requests without a token act as the client ` +
    `"${OPEN_ACCESS_CLIENT}": they can read users, batch-create users and define and allocate ` +
    `sequences. Set NODE_ENV=production to require tokens (see "Who may call what" in docs/operations.md).`
  );
}
