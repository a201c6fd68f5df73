/**
 * BLOCK's settings: the size of the blocks a process reserves. A block holds about 10 s of the
 * process's creations (src/sequences/block-allocator.ts), within these bounds.
 *
 * - `ID_BLOCK_SIZE` (default 100): the first and smallest block. Small, so a process that creates
 *   few users leaves few unused ids behind when it stops without giving its block back.
 * - `ID_BLOCK_SIZE_MAX` (default 10,000): the largest block, at least `ID_BLOCK_SIZE` (equal: blocks
 *   of a fixed size). A block is one allocation of the `userid` counter, so both are at most
 *   `VALUES_PER_ALLOCATION` (src/limits.ts), which also bounds the ids a crash leaves unused.
 */
import { z } from 'zod';
import { positiveIntVariable } from '../../config';
import { VALUES_PER_ALLOCATION } from '../../limits';

export const blockSettings = z
  .object({
    ID_BLOCK_SIZE: positiveIntVariable('ID_BLOCK_SIZE', 100, VALUES_PER_ALLOCATION),
    ID_BLOCK_SIZE_MAX: positiveIntVariable(
      'ID_BLOCK_SIZE_MAX',
      VALUES_PER_ALLOCATION,
      VALUES_PER_ALLOCATION,
    ),
  })
  .refine((env) => env.ID_BLOCK_SIZE_MAX >= env.ID_BLOCK_SIZE, {
    path: ['ID_BLOCK_SIZE_MAX'],
    message: 'ID_BLOCK_SIZE_MAX must be at least ID_BLOCK_SIZE',
  });
