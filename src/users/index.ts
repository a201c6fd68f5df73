/** The users component: the `users` collection, its id strategies, batch creation and loader. */
export { Users, MAX_USERS_PER_BATCH } from './users.js';
export type { UsersDeps } from './users.js';
export type { UserDocument, CreateUserInput } from './model.js';
export { MAX_PAGE_SIZE } from './reads.js';
export { parseUserId } from './validation.js';
export {
  DuplicateEmailError,
  UnknownInviterError,
  IdempotencyKeyReusedError,
  IdContentionError,
} from './errors.js';
