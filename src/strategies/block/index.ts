/**
 * BLOCK: each process reserves blocks of ids with one `$inc` on the `userid` counter and hands
 * them out locally (`BlockAllocator`, src/sequences: refills ahead, block size follows the rate).
 * A refused id goes back to this process's allocator, which hands it out next (no command; no
 * other process ever saw it). A taken id drops the block and repairs the counter's drift. At a
 * clean shutdown the unused rest of the block is given back when that is safe. Its ids cost no
 * command while the block lasts and go back without one, so it groups creations: concurrent
 * `createUser`s share one insert (src/users/insert-groups.ts), one command for many users.
 */
import { BlockAllocator } from '../../sequences/index';
import type { Strategy } from '../strategy';
import {
  assertIssuable,
  COUNTER_MAX_ROUNDS,
  repairCounterDrift,
  USER_ID_SEQUENCE,
} from '../user-id-counter';
import { blockSettings } from './settings';

export const block: Strategy<typeof blockSettings> = {
  properties: {
    fedByCounter: true,
    consecutiveIds: true,
    idsInTimeOrder: false,
    reissuesDeletedNewest: false,
    leavesNoHoles: false,
    groupsCreations: true,
  },
  settings: blockSettings,
  createSource(deps, settings) {
    const blocks = new BlockAllocator(deps.sequences, USER_ID_SEQUENCE, {
      minBlockSize: settings.ID_BLOCK_SIZE,
      maxBlockSize: settings.ID_BLOCK_SIZE_MAX,
      onDropped: deps.onBlockIdsDropped,
    });
    return {
      maxRounds: COUNTER_MAX_ROUNDS,
      retriesAlone: true,
      async take(count, tally) {
        const ids = await blocks.take(count, tally);
        try {
          assertIssuable(ids);
        } catch (err) {
          blocks.discardBlock();
          throw err;
        }
        return {
          ids,
          async giveBack(unstored) {
            blocks.giveBack(ids.filter((_, position) => unstored.has(position)));
          },
        };
      },
      // Dropped at once, so the rounds queued before the retry stop taking from it; the repair
      // waits for the retry's turn (a later discard would drop the block the retry just took).
      onCollision: () => blocks.discardBlock(),
      afterCollision: (_round, tally) => repairCounterDrift(deps, tally),
      release: () => blocks.close(),
    };
  },
};
