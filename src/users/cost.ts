/**
 * What one call that creates users spent, reported to `StrategyStats`.
 *
 * Why a value passed along rather than driver events: concurrent requests share one client, so
 * command events cannot be attributed to a request; each function that sends a command adds it to
 * the cost it was handed instead (the `CommandTally` contract of `src/errors.ts`).
 */
import type { CommandTally } from '../errors.js';

export interface CreationCost extends CommandTally {
  /** Counter drift repairs (`$max` of the `userid` counter to the largest stored `_id`). */
  counterRepairs: number;
}

export function newCreationCost(): CreationCost {
  return { commands: 0, counterRepairs: 0 };
}

/** Adds one sent command to the tally, when there is one. */
export function countCommand(tally: CommandTally | undefined): void {
  if (tally) tally.commands += 1;
}
