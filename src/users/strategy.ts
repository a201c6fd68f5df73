/**
 * The id strategies: the one list every other module and test iterates, so a fourth strategy is
 * added here once and is then created, measured and tested everywhere.
 */
export const ID_STRATEGIES = ['COUNTER', 'OPTIMISTIC_LOOP', 'BLOCK'] as const;

export type IdStrategy = (typeof ID_STRATEGIES)[number];

export function isIdStrategy(value: unknown): value is IdStrategy {
  return (ID_STRATEGIES as readonly unknown[]).includes(value);
}
