/**
 * COUNTER, the tutorial's counters collection: each round takes its ids with one atomic
 * `findOneAndUpdate` `$inc` on the `userid` counter, then inserts. A taken id means the counter
 * lagged (drift): it is repaired before taking again. Refused ids are given back when they are
 * still the counter's newest (see ../user-id-counter.ts).
 */
import { valuesOf } from '../../sequences/index';
import { NO_SETTINGS, type Strategy } from '../strategy';
import {
  assertIssuable,
  COUNTER_MAX_ROUNDS,
  releaseTrailing,
  repairCounterDrift,
  USER_ID_SEQUENCE,
} from '../user-id-counter';

export const counter: Strategy = {
  properties: {
    fedByCounter: true,
    consecutiveIds: true,
    idsInTimeOrder: true,
    reissuesDeletedNewest: false,
    leavesNoHoles: false,
    groupsCreations: false,
  },
  settings: NO_SETTINGS,
  createSource: (deps) => ({
    maxRounds: COUNTER_MAX_ROUNDS,
    retriesAlone: true,
    async take(count, tally) {
      const range = await deps.sequences.allocate(USER_ID_SEQUENCE, count, tally);
      const ids = valuesOf(range);
      assertIssuable(ids);
      return {
        ids,
        giveBack: (unstored, giveBackTally) =>
          releaseTrailing(deps, range, unstored, giveBackTally),
      };
    },
    afterCollision: (_round, tally) => repairCounterDrift(deps, tally),
  }),
};
