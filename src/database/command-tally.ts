/**
 * Counting the database commands a call sent.
 *
 * Why a value passed along rather than driver events: concurrent requests share one client, so
 * command events cannot be attributed to a request. Every function that talks to MongoDB takes an
 * optional tally instead and adds each command it sends, so a strategy can report commands per
 * user (the stats) and tests can assert command counts.
 */
export interface CommandTally {
  commands: number;
}

/** Adds one sent command to the tally, when there is one. */
export function countCommand(tally: CommandTally | undefined): void {
  if (tally) tally.commands += 1;
}
