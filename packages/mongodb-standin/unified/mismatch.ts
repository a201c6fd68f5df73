/** A test's observed behaviour differs from its specification. */
export class Mismatch extends Error {}

/**
 * The runner lacks something the test needs (an operation, an entity kind, an operator): the
 * test says nothing about the server under test, so it is counted apart from a wrong answer.
 */
export class RunnerGap extends Mismatch {}
