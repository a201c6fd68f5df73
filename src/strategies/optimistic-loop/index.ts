/**
 * OPTIMISTIC_LOOP, the tutorial's loop, fixed: read the largest `_id`, insert max + 1. It has no
 * counter: a taken id only means a concurrent writer won, so it backs off with jitter (spreading
 * the contenders) and reads the maximum again, at most OPTIMISTIC_MAX_ATTEMPTS rounds. It consumes
 * nothing, so it gives nothing back, and reissues a deleted newest user's id.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SequenceExhaustedError } from '../../sequences/index';
import type { Strategy } from '../strategy';

const BACKOFF_BASE_MS = 2;
const BACKOFF_CAP_MS = 1000;

export const optimisticLoop: Strategy = {
  properties: {
    fedByCounter: false,
    idsInTimeOrder: true,
    reissuesDeletedNewest: true,
    leavesNoHoles: false,
    groupsCreations: false,
  },
  createSource: (deps) => ({
    maxRounds: deps.optimisticMaxAttempts,
    retriesAlone: false,
    async take(count, tally) {
      const max = await deps.maxId(tally);
      if (max + count > Number.MAX_SAFE_INTEGER)
        throw new SequenceExhaustedError(
          'User ids have reached 2^53 - 1; no further user can be created.',
        );
      return {
        ids: Array.from({ length: count }, (_, i) => max + 1 + i),
        giveBack: async () => undefined,
      };
    },
    async afterCollision(round) {
      await sleep(Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** round));
    },
  }),
};
