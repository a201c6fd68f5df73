/**
 * What the subscription transports hold against `SUBSCRIPTIONS` (src/limits.ts): connections per
 * process, subscriptions per connection and per client (over all its connections, whichever
 * transport carries them), in one count both transports share.
 *
 * Contract:
 * - `connect` answers null past the connections bound and changes nothing; a connection counts
 *   until `disconnect`, which releases every subscription it still holds and is idempotent.
 * - `hold` refuses past either subscription bound with TOO_MANY_SUBSCRIPTIONS (retryable: once
 *   another ends) and changes nothing; a subscription counts until `release` (idempotent) or its
 *   connection's `disconnect`.
 * - A connection of the graphql-ws transport is its socket (many subscriptions); one of the SSE
 *   transport's distinct-connections mode is its HTTP request (one subscription).
 */
import { GraphQLError } from 'graphql';
import type { SUBSCRIPTIONS } from '../limits';

export type SubscriptionBounds = { readonly [bound in keyof typeof SUBSCRIPTIONS]: number };

/** One connection's place in the count. */
export interface HeldConnection {
  /** Who counts as one client for the per-client bound (set once the caller is known). */
  clientKey?: string;
  readonly subscriptions: Set<string>;
  disconnected: boolean;
}

export class SubscriptionHoldings {
  private connections = 0;
  private readonly perClient = new Map<string, number>();

  constructor(private readonly bounds: SubscriptionBounds) {}

  /** A new connection's place, or null past the connections bound. */
  connect(): HeldConnection | null {
    if (this.connections >= this.bounds.connections) return null;
    this.connections += 1;
    return { subscriptions: new Set(), disconnected: false };
  }

  /** Counts subscription `id` of `connection`; the refusal when a bound is reached. */
  hold(connection: HeldConnection, id: string): readonly GraphQLError[] | null {
    if (connection.clientKey === undefined || connection.disconnected) {
      throw new Error('hold() needs a connected, identified connection');
    }
    if (connection.subscriptions.size >= this.bounds.perConnection) {
      return overBound(`At most ${this.bounds.perConnection} subscriptions per connection`);
    }
    const held = this.perClient.get(connection.clientKey) ?? 0;
    if (held >= this.bounds.perClient) {
      return overBound(
        `At most ${this.bounds.perClient} subscriptions per client (over all its connections)`,
      );
    }
    this.perClient.set(connection.clientKey, held + 1);
    connection.subscriptions.add(id);
    return null;
  }

  /** Gives back the room subscription `id` held (nothing when it held none). */
  release(connection: HeldConnection, id: string): void {
    if (!connection.subscriptions.delete(id) || connection.clientKey === undefined) return;
    const left = (this.perClient.get(connection.clientKey) ?? 1) - 1;
    if (left === 0) this.perClient.delete(connection.clientKey);
    else this.perClient.set(connection.clientKey, left);
  }

  /** Gives back the connection's place and every subscription it held. */
  disconnect(connection: HeldConnection): void {
    if (connection.disconnected) return;
    connection.disconnected = true;
    for (const id of [...connection.subscriptions]) this.release(connection, id);
    this.connections -= 1;
  }

  /** Subscriptions held by the client `key`, over all its connections. */
  heldBy(key: string): number {
    return this.perClient.get(key) ?? 0;
  }

  /** Connections counted. */
  get connected(): number {
    return this.connections;
  }
}

/** A bound of `SUBSCRIPTIONS` refused this subscription; it may succeed once another ends. */
function overBound(message: string): readonly GraphQLError[] {
  return [
    new GraphQLError(message, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', retryable: true } }),
  ];
}
