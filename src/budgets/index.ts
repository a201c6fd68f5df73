/**
 * The budgets component: what one caller may do over time, across instances (budgets.ts, with
 * leases.ts and the `budgets` collection of store.ts), its refusal (errors.ts), and which
 * long-lived connections one process admits per caller and address (admission.ts).
 */
export { BUDGET_NAMES, budgetHolder, Budgets, type BudgetHolder } from './budgets';
export { RateLimitedError } from './errors';
export type { BudgetStanding } from './leases';
export {
  ConnectionAdmission,
  PUSHED_OUT,
  type AdmissionBounds,
  type AdmissionRefusal,
  type AdmissionTicket,
} from './admission';
