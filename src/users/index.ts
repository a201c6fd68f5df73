/** The users component: the `users` collection, its id strategies, batch creation, pages and loaders. */
export { Users, MAX_USERS_PER_BATCH, MAX_BATCH_USERS_IN_CREATION } from './users.js';
export type { UsersDeps } from './users.js';
export { ID_STRATEGIES, isIdStrategy, type IdStrategy } from './strategy.js';
export type { CreateUserInput, User } from './model.js';
export {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type InviteesRequest,
  type UserOrder,
  type UserPage,
  type UserPageRequest,
} from './pages.js';
export { USER_ID_SEQUENCE } from './id-sources.js';
export { requireUserId } from './validation.js';
export {
  DuplicateEmailError,
  UnknownInviterError,
  IdempotencyKeyReusedError,
  IdContentionError,
  UniqueIndexesUnavailableError,
  UserNotFoundError,
} from './errors.js';
