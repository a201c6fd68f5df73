/**
 * What every resolver gets, built fresh for each HTTP request.
 *
 * Invariants: the users DataLoader is per request (never shared, so one request never sees another's
 * cached users); `isAdmin` is true only for `Authorization: Bearer <ADMIN_TOKEN>`, compared in
 * constant time over SHA-256 digests (equal lengths, so neither content nor length leaks through
 * timing); with no ADMIN_TOKEN configured nobody is admin.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type DataLoader from 'dataloader';
import type { IncomingHttpHeaders } from 'node:http';
import type { Sequences } from '../sequences/index.js';
import type { StrategyStats } from '../stats/index.js';
import type { UserDocument, Users } from '../users/index.js';

/** The service's components, one set per service process. */
export interface ServiceComponents {
  users: Users;
  sequences: Sequences;
  stats: StrategyStats;
}

export interface GraphQLContext extends ServiceComponents {
  userLoader: DataLoader<number, UserDocument | null>;
  isAdmin: boolean;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** A checker for the Authorization header; null token means admin operations are closed. */
function adminCheck(adminToken: string | undefined): (headers: IncomingHttpHeaders) => boolean {
  if (adminToken === undefined) return () => false;
  const expected = sha256(adminToken);
  return (headers) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
    return match !== null && timingSafeEqual(sha256(match[1]), expected);
  };
}

export function createContextFactory(
  components: ServiceComponents,
  adminToken: string | undefined,
) {
  const isAdmin = adminCheck(adminToken);
  return async ({ req }: { req: { headers: IncomingHttpHeaders } }): Promise<GraphQLContext> => ({
    ...components,
    userLoader: components.users.createLoader(),
    isAdmin: isAdmin(req.headers),
  });
}
