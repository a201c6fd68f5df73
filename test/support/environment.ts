/**
 * Reading an environment as the service does at start: its own variables (src/config.ts) and
 * every strategy's (src/strategies), in one `loadEnvironment`.
 */
import { ConfigError, loadEnvironment } from '../../src/config';
import { STRATEGY_SETTINGS } from '../../src/strategies';

/** What the service reads from `env`. */
export function readEnvironment(env: Record<string, string>) {
  return loadEnvironment(STRATEGY_SETTINGS, env);
}

/** The message of the ConfigError `env` is refused with; fails the test when it is accepted. */
export function refusalOf(env: Record<string, string>): string {
  try {
    readEnvironment(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
  throw new Error(`accepted: ${Object.keys(env).join(', ')}`);
}
