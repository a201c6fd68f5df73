/**
 * What `RequestLimits` (`viewer { limits }`) resolves from: the per-request bounds, all known
 * without asking anyone. Its `budgets` are not here: they are read from the budgets collection by
 * their own resolver, only when a client selects them.
 */
export interface RequestLimitsSource {
  usersCreated: number;
  sequenceAllocations: number;
  listedItems: number;
  pageSize: number;
  valuesPerAllocation: number;
  batchedOperations: number;
  documentCost: number;
  documentDepth: number;
  aliases: number;
}
