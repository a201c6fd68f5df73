/**
 * A byte stream that is not a valid message. The connection that sent it is closed with this
 * reason logged; it never reaches command dispatch and never affects other connections.
 */
export class WireError extends Error {}
