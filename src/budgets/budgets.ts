/**
 * Budgets: what one caller may do over time, shared by every instance on the database (the
 * numbers and their reasons are src/limits.ts `BUDGETS`, overridable with `BUDGETS`).
 *
 * Who a caller is here: a client by its name (its token), the admin as one caller, a caller without
 * a token by its client address (src/auth/address.ts, `TRUST_PROXY`). Each budget of each kind of
 * caller is one LeasedBudget (./leases.ts: the counting, the leases, the in-process fallback).
 *
 * Invariants: a budget that is null for a kind of caller is unlimited and costs nothing to charge;
 * with budgets off (`BUDGETS=off`) every charge is free and nothing is stored. Every refusal is
 * counted in `sequential_ids_budget_refusals_total{budget}` (labelled by budget only, never by
 * caller or address, so the series are bounded); every budget's series exists from the start.
 */
import type { Db } from 'mongodb';
import type { Caller } from '../auth/index';
import { Counter, Registry } from 'prom-client';
import type { BudgetTable } from '../config';
import { BUDGETS, type BudgetName, type BudgetRole, type BudgetWindow } from '../limits';
import { LeasedBudget, type BudgetStanding } from './leases';
import { budgetStore, ensureBudgetIndexes } from './store';

/** Who a budget is counted for: the kind of caller, and the caller among them. */
export interface BudgetHolder {
  role: BudgetRole;
  /** A client's name, a caller's address, or `admin`. */
  id: string;
}

/** Whose budgets a call draws on: a client's, the admin's, or (no token) its address's. */
export function budgetHolder(caller: Caller, address: string): BudgetHolder {
  if (caller.role === 'client') return { role: 'client', id: caller.client };
  if (caller.role === 'admin') return { role: 'admin', id: 'admin' };
  return { role: 'anonymous', id: address };
}

export const BUDGET_NAMES = Object.keys(BUDGETS) as BudgetName[];

export class Budgets {
  private readonly budgets = new Map<string, LeasedBudget>();
  private readonly windows: BudgetTable | null;
  private readonly registry = new Registry();
  private readonly refusals: Map<BudgetName, Counter.Internal>;

  constructor(
    private readonly db: Db,
    options: { table: BudgetTable | null; maxTimeMS: number },
  ) {
    this.windows = options.table;
    const counter = new Counter({
      name: 'sequential_ids_budget_refusals_total',
      help: 'Requests, fields, connections and subscriptions refused RATE_LIMITED, by budget.',
      labelNames: ['budget'],
      registers: [this.registry],
    });
    this.refusals = new Map(
      BUDGET_NAMES.map((budget) => {
        const child = counter.labels({ budget });
        child.inc(0);
        return [budget, child];
      }),
    );
    if (this.windows === null) return;
    const store = budgetStore(db, options.maxTimeMS);
    const onRefusal = (budget: BudgetName) => this.refusals.get(budget)?.inc();
    for (const budget of BUDGET_NAMES) {
      for (const [role, window] of Object.entries(this.windows[budget]) as Array<
        [BudgetRole, BudgetWindow]
      >) {
        if (window === null) continue;
        this.budgets.set(
          `${budget}:${role}`,
          new LeasedBudget(budget, role, window, store, onRefusal),
        );
      }
    }
  }

  /** True unless `BUDGETS=off`. */
  get enabled(): boolean {
    return this.windows !== null;
  }

  /** The unique and TTL indexes of the `budgets` collection (./store.ts). */
  async ensureIndexes(): Promise<void> {
    if (this.windows !== null) await ensureBudgetIndexes(this.db);
  }

  /**
   * Spends `units` of `holder`'s `budget` or throws RATE_LIMITED (a RateLimitedError) and spends
   * nothing; synchronous unless the database must be asked.
   */
  charge(holder: BudgetHolder, budget: BudgetName, units: number): void | Promise<void> {
    return this.budgets.get(`${budget}:${holder.role}`)?.charge(holder.id, units);
  }

  /** Every budget of `holder`: its size and what is left of it now. */
  standing(holder: BudgetHolder): Promise<BudgetStanding[]> {
    return Promise.all(
      BUDGET_NAMES.map((budget) => {
        const counted = this.budgets.get(`${budget}:${holder.role}`);
        if (counted !== undefined) return counted.standing(holder.id);
        return {
          budget,
          limit: null,
          windowSeconds: null,
          remaining: null,
          resetsInSeconds: null,
        } satisfies BudgetStanding;
      }),
    );
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The refusal counts, in Prometheus text. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
