/** jest globalTeardown: stops the database the global setup started (nothing for MONGODB_URI). */
import type { TestDatabase } from './database';
import { RUNNING_DATABASE } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as Record<symbol, TestDatabase | undefined>;
  await holder[RUNNING_DATABASE]?.stop();
  holder[RUNNING_DATABASE] = undefined;
}
