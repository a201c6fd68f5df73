/**
 * OPTIMISTIC_LOOP, the tutorial's loop, fixed: read the largest `_id`, insert max + 1. It has no
 * counter: a taken id only means a concurrent writer won, so it backs off with jitter (spreading
 * the contenders) and reads the maximum again, at most OPTIMISTIC_MAX_ATTEMPTS rounds. It consumes
 * nothing, so it gives nothing back, and reissues a deleted newest user's id.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { positiveIntVariable } from '../../config';
import { SequenceExhaustedError } from '../../sequences/index';
import type { Strategy } from '../strategy';

const BACKOFF_BASE_MS = 2;
const BACKOFF_CAP_MS = 1000;

/**
 * `OPTIMISTIC_MAX_ATTEMPTS` (default 10, at most 1,000): rounds before ID_CONTENTION. From the
 * ninth on each back-off waits up to `BACKOFF_CAP_MS`, half of it on average, so 1,000 rounds
 * wait about 500 s in all, near the longest request deadline (REQUEST_TIMEOUT_MS, 600 s): more
 * rounds could never run.
 */
const optimisticSettings = z.object({
  OPTIMISTIC_MAX_ATTEMPTS: positiveIntVariable('OPTIMISTIC_MAX_ATTEMPTS', 10, 1_000),
});

export const optimisticLoop: Strategy<typeof optimisticSettings> = {
  properties: {
    fedByCounter: false,
    consecutiveIds: true,
    idsInTimeOrder: true,
    reissuesDeletedNewest: true,
    leavesNoHoles: false,
    groupsCreations: false,
  },
  settings: optimisticSettings,
  createSource: (deps, settings) => ({
    maxRounds: settings.OPTIMISTIC_MAX_ATTEMPTS,
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
