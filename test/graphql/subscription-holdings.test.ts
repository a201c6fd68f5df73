/**
 * src/graphql/subscription-holdings.ts alone: the count both subscription transports share.
 * Connections past their bound are refused and change nothing; a subscription past the
 * per-connection or per-client bound is TOO_MANY_SUBSCRIPTIONS (retryable) and changes nothing;
 * release and disconnect give back exactly what was held, once.
 */
import { type HeldConnection, SubscriptionHoldings } from '../../src/graphql/subscription-holdings';
import { SUBSCRIPTIONS } from '../../src/limits';

const bounds = { ...SUBSCRIPTIONS, connections: 3, perConnection: 2, perClient: 3 };

function connected(holdings: SubscriptionHoldings, clientKey: string): HeldConnection {
  const connection = holdings.connect();
  if (connection === null) throw new Error('refused');
  connection.clientKey = clientKey;
  return connection;
}

const codeOf = (refused: ReturnType<SubscriptionHoldings['hold']>) =>
  refused?.map((error) => [error.message, error.extensions]);

test('connections past the bound are refused until one disconnects, once', () => {
  const holdings = new SubscriptionHoldings(bounds);
  const three = [holdings.connect(), holdings.connect(), holdings.connect()];
  expect(three.every((connection) => connection !== null)).toBe(true);
  expect(holdings.connect()).toBeNull();
  expect(holdings.connected).toBe(3);
  holdings.disconnect(three[0]!);
  holdings.disconnect(three[0]!); // a second close of one connection frees nothing more
  expect(holdings.connected).toBe(2);
  expect(holdings.connect()).not.toBeNull();
  expect(holdings.connect()).toBeNull();
});

test('per connection, then per client over its connections; another client is not held back', () => {
  const holdings = new SubscriptionHoldings(bounds);
  const first = connected(holdings, 'client:a');
  expect(holdings.hold(first, '1')).toBeNull();
  expect(holdings.hold(first, '2')).toBeNull();
  expect(codeOf(holdings.hold(first, '3'))).toEqual([
    ['At most 2 subscriptions per connection', { code: 'TOO_MANY_SUBSCRIPTIONS', retryable: true }],
  ]);
  const second = connected(holdings, 'client:a');
  expect(holdings.hold(second, '1')).toBeNull();
  expect(codeOf(holdings.hold(second, '2'))).toEqual([
    [
      'At most 3 subscriptions per client (over all its connections)',
      { code: 'TOO_MANY_SUBSCRIPTIONS', retryable: true },
    ],
  ]);
  expect(holdings.heldBy('client:a')).toBe(3);
  const other = connected(holdings, 'admin');
  expect(holdings.hold(other, '1')).toBeNull();
  expect(holdings.heldBy('admin')).toBe(1);
});

test('release gives back one place, once; disconnect gives back all a connection held', () => {
  const holdings = new SubscriptionHoldings(bounds);
  const first = connected(holdings, 'client:a');
  const second = connected(holdings, 'client:a');
  holdings.hold(first, '1');
  holdings.hold(first, '2');
  holdings.hold(second, '1');
  holdings.release(first, '1');
  holdings.release(first, '1');
  holdings.release(first, 'never held');
  expect(holdings.heldBy('client:a')).toBe(2);
  expect(holdings.hold(second, '2')).toBeNull();
  expect(holdings.heldBy('client:a')).toBe(3);
  holdings.disconnect(second);
  expect(holdings.heldBy('client:a')).toBe(1);
  holdings.disconnect(first);
  expect(holdings.heldBy('client:a')).toBe(0);
  expect(holdings.connected).toBe(0);
});
