/**
 * Which long-lived connections (WebSocket subscriptions; any transport that holds a connection per
 * caller) one process admits, so that no caller can crowd out the others (the numbers are
 * src/limits.ts `SUBSCRIPTIONS`).
 *
 * Two stages, each with its own places:
 * - a connection that is open but has not said who it is (no `connection_init` yet) holds a place
 *   of `awaitingInit`, at most `awaitingInitPerAddress` of them per client address. These are not
 *   counted against `connections`, so sockets that never say who they are never take the room of
 *   callers that do. When its address's places (or all of them) are taken, a new connection
 *   takes the place of the one that has waited longest, which is closed: an honest client says
 *   who it is in its first round trip, so it is never the oldest for long, while silent sockets
 *   only push each other out (refusing the newest instead would let a flood that holds every place
 *   shut out every honest socket behind it, from its own address and from all others);
 * - once it says who it is, it moves to one of the `connections` places, at most
 *   `connectionsPerCaller` of them per caller (a client by its token, a caller without one by its
 *   address), so one client holding its maximum leaves room for others. Past either, it is
 *   refused and changes no count.
 * Every ticket is released exactly once, whatever stage it reached (released twice, the second is
 * ignored). Counts are per process: N instances admit N times as many in all, each bounded.
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

/** Why a connection was refused or pushed out, written to be shown (a WebSocket close reason). */
export type AdmissionRefusal = string;

export const PUSHED_OUT: AdmissionRefusal =
  'Too many connections awaiting connection_init; send it at once after opening';

interface Awaiting {
  ticket: AdmissionTicket;
  /** Closes the connection when a newer one takes its place. */
  pushOut: () => void;
}

function add(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

export class ConnectionAdmission {
  /** Awaiting connections, oldest first (a Map keeps insertion order), in all and by address. */
  private readonly awaiting = new Map<AdmissionTicket, Awaiting>();
  private readonly awaitingByAddress = new Map<string, Map<AdmissionTicket, Awaiting>>();
  private admitted = 0;
  private readonly admittedByCaller = new Map<string, number>();

  constructor(private readonly bounds: AdmissionBounds) {}

  /**
   * A connection opened from `address`: its ticket. When the places are taken, the connection
   * that waited longest (of this address, else of all) is released and `pushOut` called for it.
   */
  open(address: string, pushOut: () => void): AdmissionTicket {
    const ticket: AdmissionTicket = { address, caller: null, released: false };
    let mine = this.awaitingByAddress.get(address);
    if (mine === undefined) {
      mine = new Map();
      this.awaitingByAddress.set(address, mine);
    }
    if (mine.size >= this.bounds.awaitingInitPerAddress) this.pushOutOldest(mine);
    if (this.awaiting.size >= this.bounds.awaitingInit) this.pushOutOldest(this.awaiting);
    const entry = { ticket, pushOut };
    this.awaiting.set(ticket, entry);
    mine.set(ticket, entry);
    return ticket;
  }

  /**
   * The connection of `ticket` says who it is (`caller`: a client, the admin, or an address): true
   * when it is admitted, else why not (its awaiting place is given back either way).
   */
  admit(ticket: AdmissionTicket, caller: string): true | AdmissionRefusal {
    if (ticket.released) return PUSHED_OUT;
    if (ticket.caller !== null) return 'The connection was admitted already';
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
    return { awaiting: this.awaiting.size, admitted: this.admitted };
  }

  private pushOutOldest(queue: Map<AdmissionTicket, Awaiting>): void {
    const oldest = queue.values().next().value;
    if (oldest === undefined) return;
    this.release(oldest.ticket);
    oldest.pushOut();
  }

  private leaveAwaiting(ticket: AdmissionTicket): void {
    this.awaiting.delete(ticket);
    const mine = this.awaitingByAddress.get(ticket.address);
    mine?.delete(ticket);
    if (mine?.size === 0) this.awaitingByAddress.delete(ticket.address);
  }
}
