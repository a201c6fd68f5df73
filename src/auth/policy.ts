/**
 * Who may call what: the one table of the service's authorization ("Who may call what" in
 * docs/operations.md shows it, and test/http/authorization.test.ts checks the two agree with each
 * other and the schema).
 *
 * Roles are ordered anonymous < client < admin; each root field, each field that leads to other
 * users' data, and each endpoint names the least role that may call it. Fail closed: a field without a row is refused to everyone but admin. Decisions:
 * - a sign-up page needs only `createUser`, so that is all anonymous callers get in production, one
 *   user per request (`usersPerRequest`); they read nothing of other users and touch no sequence;
 * - batches (`createUsers`), strategy statistics and `/metrics` need a client token: they are for
 *   back-end services, imports and operators, and each costs far more than a sign-up;
 * - clients define, allocate, peek at and list only the sequences they own (the sequences component
 *   enforces ownership from `sequenceAccess`), confirm and release only their own reservations,
 *   list the holes of what they can read, and read `userid`, the counter `createUser` advances
 *   (so does the open-access client outside production); moving a counter is admin only;
 * - clients create and read users (a sign-up back end, an import); changing or deleting a user is
 *   admin only, since users belong to no client.
 * Refusals: UNAUTHENTICATED when the field needs a token and the request has none (a token that is
 * presented but not valid is refused before any field, see callers.ts); FORBIDDEN when the caller's
 * token is valid but its role is too low.
 */
import { DomainError, ForbiddenError } from '../errors';
import { USERS_PER_REQUEST } from '../limits';
import type { Caller, Role, TokenHolder } from './callers';

const RANK: Record<Role, number> = { anonymous: 0, client: 1, admin: 2 };

export const FIELD_ACCESS: Readonly<Record<string, Readonly<Record<string, Role>>>> = {
  Query: {
    // `node` and `nodes` stand for `user` and `sequence`: the least role of the two here, and each
    // id is checked again against the row of the field it stands for (src/graphql/nodes.ts).
    node: 'client',
    nodes: 'client',
    // Anyone may ask who they are (a sign-up page too).
    viewer: 'anonymous',
    user: 'client',
    userByEmail: 'client',
    users: 'client',
    sequence: 'client',
    sequences: 'client',
    nextSequence: 'client',
    strategyStats: 'client',
  },
  Mutation: {
    createUser: 'anonymous',
    createUsers: 'client',
    updateUser: 'admin',
    deleteUser: 'admin',
    createSequence: 'client',
    allocateSequence: 'client',
    confirmReservation: 'client',
    releaseReservation: 'client',
    confirmReservations: 'client',
    releaseReservations: 'client',
    setSequence: 'admin',
    advanceSequence: 'client',
    setSequenceFormat: 'admin',
    importUsers: 'admin',
  },
  // Fields that lead from a user to other users: a sign-up page without a token may read the user
  // it created, not its inviter (named by `invitedById`) nor anyone's invitees.
  User: {
    invitedBy: 'client',
    invitees: 'client',
  },
  // The inviter a payload hands back is another user, read as `invitedBy` is.
  CreateUserPayload: {
    inviter: 'client',
  },
  DeleteUserPayload: {
    inviter: 'client',
  },
  // An audit read that scans up to 10,000 stored ids (of `userid`): never for a sign-up page. Only
  // the sequences a caller can read lead here.
  Sequence: {
    gaps: 'client',
  },
  // Subscriptions read change streams and hold a connection: for back ends and dashboards with a
  // token, never for a sign-up page. A client watches only sequences it may read (the catalog decides, as over HTTP).
  Subscription: {
    sequenceChanged: 'client',
    userCreated: 'client',
  },
};

export const ENDPOINT_ACCESS: Readonly<Record<string, Role>> = { 'GET /metrics': 'client' };

/** The most users one HTTP request may create, across aliases and batched operations. */
export function usersPerRequest(caller: Caller): number {
  return caller.role === 'anonymous' ? USERS_PER_REQUEST.anonymous : USERS_PER_REQUEST.withToken;
}

export class UnauthenticatedError extends DomainError {
  readonly code = 'UNAUTHENTICATED';
}

const ROLE_NEED: Record<Role, string> = {
  anonymous: 'no token',
  client: 'a client or admin token (Authorization: Bearer <token>)',
  admin: 'the admin token (Authorization: Bearer <ADMIN_TOKEN>)',
};

/** The least role allowed to call `Type.field` (admin for a field the table forgot). */
export function requiredRole(type: string, field: string): Role {
  return FIELD_ACCESS[type]?.[field] ?? 'admin';
}

/** How the sequences component knows the caller; anonymous callers reach no sequence. */
export function sequenceAccess(caller: Caller): TokenHolder {
  if (caller.role === 'anonymous')
    throw new UnauthenticatedError(`Sequences need ${ROLE_NEED.client}`);
  return caller;
}

/** Throws UNAUTHENTICATED or FORBIDDEN unless `caller` may call `what` (a field or endpoint). */
export function authorize(caller: Caller, needed: Role, what: string): void {
  if (RANK[caller.role] >= RANK[needed]) return;
  const message = `${what} needs ${ROLE_NEED[needed]}`;
  throw caller.role === 'anonymous'
    ? new UnauthenticatedError(message)
    : new ForbiddenError(message);
}
