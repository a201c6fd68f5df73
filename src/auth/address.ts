/**
 * Where a request comes from: the client address a caller without a token is known by (its
 * budgets, its WebSocket allowances).
 *
 * Invariants: with `TRUST_PROXY` at 0 (the default) the address is the TCP peer's, whatever the
 * request's headers say: `X-Forwarded-For` is written by whoever sends the request, so believing
 * it without a proxy in front would let any caller pick the address it is counted under. With
 * `TRUST_PROXY` at N, the N proxies nearest the service are trusted: each appends the address it
 * received the request from, so the client is the Nth address from the right of `X-Forwarded-For`
 * (the peer's own address counts as the first hop, as express's numeric `trust proxy` does). A
 * header shorter than that names the leftmost address; the addresses a client put there itself
 * lie further left and are never read.
 */

import type { IncomingMessage } from 'node:http';

/** What the address is read from: a request, or the upgrade request of a WebSocket. */
export type AddressSource = Pick<IncomingMessage, 'headers' | 'socket'>;

/** An IPv4 address mapped into IPv6 (`::ffff:1.2.3.4`) is the IPv4 address: one caller, one key. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** The client address of `source`, trusting the `trustedHops` proxies nearest the service. */
export function clientAddress(source: AddressSource, trustedHops: number): string {
  const peer = plain(source.socket.remoteAddress ?? 'unknown');
  if (trustedHops === 0) return peer;
  const header = source.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '');
  // The chain as the service sees it: the client's claims, each proxy's addition, then the peer.
  const chain = [...forwarded, peer];
  return plain(chain[Math.max(chain.length - 1 - trustedHops, 0)]);
}
