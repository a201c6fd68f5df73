/** The `scale` field of dbStats, collStats and $collStats: a positive number, 1 when absent. */
import { badValue } from '../engine/errors';
import { Document } from '../engine/values';
import { optionalNumber } from './context';

export function scaleOf(command: Document): number {
  const scale = optionalNumber(command, 'scale') ?? 1;
  if (!(scale >= 1)) throw badValue('Scale factor must be a positive number');
  return Math.floor(scale);
}
