/**
 * What the HTTP layer learns of a request before GraphQL runs, kept on `res.locals`: who is calling
 * (src/auth, once per request) and the request's budget (its deadline). Typed here once.
 */
import type { Caller } from '../auth/index.js';
import type { RequestBudget } from '../graphql/budget.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- express types res.locals this way
  namespace Express {
    interface Locals {
      caller: Caller;
      budget: RequestBudget;
    }
  }
}
