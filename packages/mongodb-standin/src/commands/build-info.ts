/**
 * `buildInfo`: a version in the range the reported wire versions imply, marked as the stand-in
 * so no human mistakes it for a real mongod.
 */
import { CommandDefinition } from './context';

export const buildInfo: CommandDefinition = {
  name: 'buildInfo',
  aliases: ['buildinfo'],
  fields: [],
  run: () => ({
    version: '7.0.0',
    versionArray: [7, 0, 0, 0],
    gitVersion: 'sequential-ids MongoDB stand-in (not MongoDB)',
    modules: ['standin'],
    bits: 64,
    maxBsonObjectSize: 16 * 1024 * 1024,
    storageEngines: ['standin-memory'],
    ok: 1,
  }),
};
