/**
 * What a bearer token must look like, checked once at start-up (src/config.ts) so that a token that
 * could never match is a configuration error, not a FORBIDDEN in every request.
 *
 * Why these rules: an HTTP header carries bytes, and clients encode non-ASCII text differently
 * (Latin-1 in some, UTF-8 in curl), so only visible ASCII (0x21 to 0x7E) is the same token for
 * everyone; a space never survives `Authorization: Bearer <token>` intact; 32 characters is the
 * least that resists guessing when compared in constant time (128 bits of hex, 190 of base64).
 * `CLIENT_TOKENS` is a comma-separated list of `clientName:token`; client names follow the sequence
 * name syntax because they become the `owner` of the sequences a client creates.
 */

export const MIN_TOKEN_LENGTH = 32;

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const CLIENT_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/**
 * The caller a request without a (valid) token acts as outside production; reserved, so no
 * configured client can share its sequences.
 */
export const OPEN_ACCESS_CLIENT = 'anonymous';

export interface ClientToken {
  client: string;
  token: string;
}

/** Why `token` can never be a usable bearer token, or null when it can. */
export function tokenProblem(token: string): string | null {
  if (!VISIBLE_ASCII.test(token)) {
    return 'must be visible ASCII characters only (no spaces, no accents, no control characters)';
  }
  if (token.length < MIN_TOKEN_LENGTH) return `must be at least ${MIN_TOKEN_LENGTH} characters`;
  return null;
}

/**
 * Parses `CLIENT_TOKENS`; returns the list, or the problems (naming the client, never the token).
 */
export function parseClientTokens(text: string): { clients: ClientToken[]; problems: string[] } {
  const clients: ClientToken[] = [];
  const problems: string[] = [];
  const entries = text.split(',').filter((entry) => entry.trim() !== '');
  for (const [position, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    const client = colon < 0 ? '' : entry.slice(0, colon).trim();
    const token = colon < 0 ? '' : entry.slice(colon + 1);
    const label = CLIENT_NAME.test(client) ? `client ${client}` : `entry ${position + 1}`;
    if (!CLIENT_NAME.test(client)) {
      problems.push(
        `${label} must be clientName:token, the name a letter then letters, digits, _, . or - (at most 64)`,
      );
      continue;
    }
    if (client === OPEN_ACCESS_CLIENT) {
      problems.push(`${label}: the name ${OPEN_ACCESS_CLIENT} is reserved for open access`);
      continue;
    }
    const problem = tokenProblem(token);
    if (problem !== null) problems.push(`the token of ${label} ${problem}`);
    else if (clients.some((other) => other.client === client)) {
      problems.push(`${label} is listed twice`);
    } else if (clients.some((other) => other.token === token)) {
      problems.push(`the token of ${label} is also another client's token`);
    } else clients.push({ client, token });
  }
  return { clients, problems };
}
