/** The users component: the `users` collection, its id strategies, batch creation, pages and loaders. */
export { Users } from './users';
export type { CreationOptions } from './creation';
export type { KeyOwner } from './key-owners';
export type { UsersDeps } from './users';
export type { CreateUserInput, User } from './model';
export type { ImportUserInput } from './import';
export { type InviteesRequest, type UserOrder, type UserPage, type UserPageRequest } from './pages';
export { requireUserId } from './validation';
export {
  DuplicateEmailError,
  UnknownInviterError,
  IdempotencyKeyReusedError,
  IdContentionError,
  UniqueIndexesUnavailableError,
  UserNotFoundError,
  IdTakenError,
} from './errors';
