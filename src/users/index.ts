/** The users component: the `users` collection, its id strategies, batch creation, pages and loaders. */
export { Users } from './users.js';
export type { CreationOptions } from './creation.js';
export type { KeyOwner } from './key-owners.js';
export type { UsersDeps } from './users.js';
export type { CreateUserInput, User } from './model.js';
export {
  type InviteesRequest,
  type UserOrder,
  type UserPage,
  type UserPageRequest,
} from './pages.js';
export { requireUserId } from './validation.js';
export {
  DuplicateEmailError,
  UnknownInviterError,
  IdempotencyKeyReusedError,
  IdContentionError,
  UniqueIndexesUnavailableError,
  UserNotFoundError,
} from './errors.js';
