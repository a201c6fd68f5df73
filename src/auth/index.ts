/**
 * Authorization: who a request is (callers.ts), where it comes from (address.ts), what it may call
 * (policy.ts), valid tokens (tokens.ts).
 */
export { clientAddress, type AddressSource } from './address';
export {
  createAuthenticator,
  openAccessWarning,
  type AuthConfig,
  type Caller,
  type Role,
  type TokenHolder,
} from './callers';
export {
  authorize,
  ENDPOINT_ACCESS,
  FIELD_ACCESS,
  requiredRole,
  sequenceAccess,
  UnauthenticatedError,
  usersPerRequest,
} from './policy';
export { parseClientTokens, tokenProblem, type ClientToken } from './tokens';
