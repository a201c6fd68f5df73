/**
 * Which long-lived connections (WebSocket subscriptions; any transport that holds a connection per
 * caller) one process admits, so that no caller can crowd out the others (the numbers are
 * src/limits.ts `SUBSCRIPTIONS`).
 *
 * Two stages, each with its own places:
 * - a connection that is open but has not said who it is (no `connection_init` yet) holds a place
 *   of `awaitingInit`, at most `awaitingInitPerAddress` of them per client address. These are not
 *   counted against `connections`: sockets that never say who they are fill only their own
 *   places, and a caller that does say (a client with a token) still finds room;
 * - once it says who it is, it moves to one of the `connections` places, at most
 *   `connectionsPerCaller` of them per caller (a client by its token, a caller without one by its
 *   address), so one client holding its maximum leaves room for others.
 * A refused connection changes no count. Every ticket is released exactly once, whatever stage it
 * reached (released twice, the second is ignored). Counts are per process: N instances admit N
 * times as many in all, each bounded.
 */

export interface AdmissionBounds {
  connections: number;
  connectionsPerCaller: number;
  awaitingInit: number;
  awaitingInitPerAddress: number;
}

/** One connection's place: awaiting its caller, admitted as one, or released. */
export interface AdmissionTicket {
  readonly address: string;
  caller: string | null;
  released: boolean;
}

/** Why a connection was refused, written to be shown (a WebSocket close reason: short). */
export type AdmissionRefusal = string;

function add(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

export class ConnectionAdmission {
  private awaiting = 0;
  private readonly awaitingByAddress = new Map<string, number>();
  private admitted = 0;
  private readonly admittedByCaller = new Map<string, number>();

  constructor(private readonly bounds: AdmissionBounds) {}

  /** A connection opened from `address`: its ticket, or why it is refused. */
  open(address: string): AdmissionTicket | AdmissionRefusal {
    if ((this.awaitingByAddress.get(address) ?? 0) >= this.bounds.awaitingInitPerAddress) {
      return 'Too many connections awaiting connection_init from this address; try again later';
    }
    if (this.awaiting >= this.bounds.awaitingInit) {
      return 'Too many connections awaiting connection_init; try again later';
    }
    this.awaiting += 1;
    add(this.awaitingByAddress, address, 1);
    return { address, caller: null, released: false };
  }

  /**
   * The connection of `ticket` says who it is (`caller`: a client, the admin, or an address): true
   * when it is admitted, else why not (its awaiting place is given back either way).
   */
  admit(ticket: AdmissionTicket, caller: string): true | AdmissionRefusal {
    if (ticket.released || ticket.caller !== null) return 'The connection was admitted already';
    this.leaveAwaiting(ticket);
    if ((this.admittedByCaller.get(caller) ?? 0) >= this.bounds.connectionsPerCaller) {
      ticket.released = true;
      return `At most ${this.bounds.connectionsPerCaller} connections per caller; try again later`;
    }
    if (this.admitted >= this.bounds.connections) {
      ticket.released = true;
      return 'Too many subscription connections; try again later';
    }
    ticket.caller = caller;
    this.admitted += 1;
    add(this.admittedByCaller, caller, 1);
    return true;
  }

  /** The connection closed: its place, whichever it held, is free again. */
  release(ticket: AdmissionTicket): void {
    if (ticket.released) return;
    ticket.released = true;
    if (ticket.caller === null) {
      this.leaveAwaiting(ticket);
      return;
    }
    this.admitted -= 1;
    add(this.admittedByCaller, ticket.caller, -1);
  }

  /** Places held now, for tests and diagnostics. */
  get counts(): { awaiting: number; admitted: number } {
    return { awaiting: this.awaiting, admitted: this.admitted };
  }

  private leaveAwaiting(ticket: AdmissionTicket): void {
    this.awaiting -= 1;
    add(this.awaitingByAddress, ticket.address, -1);
  }
}
