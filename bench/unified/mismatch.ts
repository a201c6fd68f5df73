/** A test's observed behaviour differs from its specification (or the runner lacks something). */
export class Mismatch extends Error {}
